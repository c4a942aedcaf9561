package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// TestLedgerCreditAndMigrate: gateway merchant credit with --key credits
// once however often it is run; gateway ledger migrate carries a balance of
// before the journal in once, run twice.
func TestLedgerCreditAndMigrate(t *testing.T) {
	e := newE2ERedis(t)
	ctx := context.Background()
	var shop struct {
		AppID string `json:"appid"`
	}
	e.cli(&shop, "merchant", "create", "--name", "Ledger shop", "--json")
	var credited map[string]string
	for range 2 {
		e.cli(&credited, "merchant", "credit", shop.AppID, "--currency", "USD", "--amount", "20.00", "--key", "wire-1", "--json")
	}
	if credited["balance"] != "20.00" {
		t.Fatalf("credit with one key twice: %v", credited)
	}
	opt, err := redis.ParseURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	rdb.HSet(ctx, schema.BalanceKey(shop.AppID), "CNY", 7_00) // kept before the journal
	for run, want := range []string{"1 opening entries posted now", "0 opening entries posted now"} {
		out, err := exec.Command(e.bin, "ledger", "migrate", "--redis-url", e.redisURL).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("migrate run %d: %s %v, want %q", run, out, err, want)
		}
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bals, err := j.Balances(ctx, shop.AppID)
	if err != nil || len(bals) != 2 || bals[0].Currency != "CNY" || bals[0].Available != 7_00 || bals[1].Available != 20_00 {
		t.Fatalf("balances %+v %v", bals, err)
	}
}
