package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// TestFeesCLI: gateway fees sets a default and a merchant's override, lists
// them (the default first) and clears one, each change an audit entry of
// the CLI's actor; a schedule that does not parse is refused before
// anything is written.
func TestFeesCLI(t *testing.T) {
	e := newE2ERedis(t)
	var m struct{ AppID string }
	e.cli(&m, "merchant", "create", "--name", "Tea Shop", "--json")
	var set []feeRow
	e.cli(&set, "fees", "set", "--method", "wallet_a", "--currency", "usd", "--bps", "290", "--fixed", "0.30", "--by", "alice", "--json")
	if len(set) != 1 || set[0].Merchant != "" || set[0].Currency != "USD" || set[0].Bps != 290 || set[0].Fixed != "0.30" {
		t.Fatalf("set printed %+v", set)
	}
	e.cli(nil, "fees", "set", "--merchant", m.AppID, "--method", "wallet_a", "--currency", "USD", "--bps", "100",
		"--min", "0.50", "--max", "20", "--json")
	var list []feeRow
	e.cli(&list, "fees", "list", "--json")
	if len(list) != 2 || list[0].Merchant != "" || list[1].Merchant != m.AppID || list[1].Fee != "1.00%, min 0.50, max 20.00" {
		t.Fatalf("list %+v", list)
	}
	refused := []struct {
		name string
		args []string
		want string
	}{
		{"fractional bps", []string{"--bps", "1.5"}, "bps"},
		{"over-precise fixed", []string{"--bps", "1", "--fixed", "0.001"}, "fixed"},
		{"negative fixed", []string{"--bps", "1", "--fixed", "-0.30"}, "fixed"},
		{"exponent max", []string{"--bps", "1", "--max", "1e3"}, "max"},
		{"min above max", []string{"--bps", "1", "--min", "5", "--max", "4"}, "minimum"},
		{"no bps", []string{"--fixed", "1"}, "bps"},
		{"select is no method", []string{"--method", "select", "--bps", "1"}, "not a payment method"},
		{"unknown merchant", []string{"--merchant", "999999", "--bps", "1"}, "no merchant"},
	}
	for _, c := range refused {
		t.Run("refused/"+c.name, func(t *testing.T) {
			args := append([]string{"fees", "set", "--method", "wallet_a", "--currency", "USD"}, c.args...)
			cmd := exec.Command(e.bin, args...)
			cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("gateway %v: %v\n%s", args, err, out)
			}
		})
	}
	for _, args := range [][]string{{"fees", "--help"}, {"fees", "set", "--help"}} {
		out, err := exec.Command(e.bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--merchant") || !strings.Contains(string(out), "bps") {
			t.Fatalf("gateway %v: %v\n%s", args, err, out)
		}
	}
	var again []feeRow
	e.cli(&again, "fees", "list", "--json")
	if len(again) != 2 || again[0] != list[0] || again[1] != list[1] {
		t.Fatalf("a refused set changed the schedules: %+v", again)
	}
	e.cli(nil, "fees", "clear", "--merchant", m.AppID, "--method", "wallet_a", "--currency", "USD", "--json")
	e.cli(&list, "fees", "list", "--json")
	if len(list) != 1 || list[0].Merchant != "" {
		t.Fatalf("after clear %+v", list)
	}
	rows := feeAudit(t, e.redisURL)
	if len(rows) != 3 || rows[0].ActorID != "alice" || rows[0].Details["fee"] != "2.90% + 0.30" || rows[2].Action != "fees.clear" ||
		rows[1].AppID != m.AppID {
		t.Fatalf("audit %+v", rows)
	}
}

// feeAudit is the {merchants} audit stream's fee entries, oldest first.
func feeAudit(t *testing.T, url string) []audit.Row {
	t.Helper()
	rdb := redisOf(t, url)
	all, err := audit.Read(context.Background(), rdb, schema.AuditKey("{merchants}"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Row
	for _, r := range all {
		if strings.HasPrefix(r.Action, "fees.") {
			out = append(out, r)
		}
	}
	return out
}

// TestFeesReachServe: a running gateway charges nothing before a schedule
// is set, picks up `gateway fees set` without a restart (its copy polls
// the version key), records the schedule on the orders it creates after,
// and keeps an order's recorded schedule when the operator changes it.
func TestFeesReachServe(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve()
	rdb := redisOf(t, e.redisURL)
	feeOf := func(id string) string {
		shard, _ := schema.ParseOrderID(id)
		return rdb.HGet(context.Background(), schema.OrderKey(shard, id), schema.FFee).Val()
	}
	create := func() string {
		t.Helper()
		r := s.create(t, createParams(shop.AppID), shop.APIKey)
		if r.Status != 200 {
			t.Fatalf("create: %+v", r)
		}
		return r.Data["paymentId"].(string)
	}
	if f := feeOf(create()); f != "" {
		t.Fatalf("a fee %q before any schedule", f)
	}
	e.cli(nil, "fees", "set", "--method", "wallet_a", "--currency", "CNY", "--bps", "290", "--fixed", "0.30", "--json")
	// Eventually, not by a deadline of ours: the copy refreshes each second.
	var first string
	for i := 0; i < 100 && first == ""; i++ {
		if id := create(); feeOf(id) != "" {
			first = id
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if first == "" || feeOf(first) != "290:30:0:0" {
		t.Fatalf("the serving process never recorded the schedule (order %q: %q)", first, feeOf(first))
	}
	e.cli(nil, "fees", "set", "--method", "wallet_a", "--currency", "CNY", "--bps", "500", "--json")
	for i := 0; i < 100 && feeOf(create()) != "500:0:0:0"; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if f := feeOf(first); f != "290:30:0:0" {
		t.Fatalf("the recorded schedule changed to %q", f)
	}
}

func redisOf(t *testing.T, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
