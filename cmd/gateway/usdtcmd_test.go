package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// refused runs a gateway subcommand that must fail, and answers its stderr.
func (e *e2e) refused(args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err == nil {
		e.t.Fatalf("gateway %v succeeded: %s", args, out)
	}
	return stderr.String()
}

const cliTron = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" // a well-formed TRON address

// TestUSDTConfigCLI: set fills the chain's defaults and later changes only
// what is given; live and sandbox entries are apart; bad input is refused
// and changes nothing; remove takes one entry.
func TestUSDTConfigCLI(t *testing.T) {
	e := newE2ERedis(t)
	var n usdt.Network
	e.cli(&n, "usdt", "config", "set", "trc20", "--address", cliTron, "--json")
	if n.Name != "TRC20" || n.Decimals != 6 || n.Confirmations != 30 || n.Mode != usdt.ModeChain || n.ExchangeNetwork != "TRX" {
		t.Fatalf("set with defaults: %+v", n)
	}
	e.cli(&n, "usdt", "config", "set", "TRC20", "--mode", "dual", "--confirmations", "40", "--json")
	if n.Mode != usdt.ModeDual || n.Confirmations != 40 || len(n.Addresses) != 1 || n.Addresses[0] != cliTron {
		t.Fatalf("a change of two flags: %+v", n)
	}
	bsc := "0x" + strings.Repeat("5e", 20)
	e.cli(&n, "usdt", "config", "set", "BEP20", "--sandbox", "--address", bsc+",0x"+strings.Repeat("6f", 20), "--mode", "exchange", "--json")
	if !n.Sandbox || n.Decimals != 18 || n.Confirmations != 15 || len(n.Addresses) != 2 {
		t.Fatalf("sandbox BEP20: %+v", n)
	}
	for _, bad := range [][]string{
		{"set", "BEP20", "--address", "0x1234"},
		{"set", "TRC20", "--mode", "vibes"},
		{"set", "SOL", "--address", cliTron},
		{"remove", "BEP20"}, // only the sandbox has one
	} {
		if msg := e.refused(append([]string{"usdt", "config"}, bad...)...); msg == "" {
			t.Fatalf("%v: refused without a word", bad)
		}
	}
	var shown []usdt.Network
	e.cli(&shown, "usdt", "config", "show", "--json")
	if len(shown) != 2 || shown[0].Key() != "TRC20" || shown[0].Mode != usdt.ModeDual || shown[1].Key() != "sandbox:BEP20" {
		t.Fatalf("show: %+v", shown)
	}
	e.run("usdt", "config", "remove", "BEP20", "--sandbox")
	e.cli(&shown, "usdt", "config", "show", "--json")
	if len(shown) != 1 || shown[0].Name != "TRC20" {
		t.Fatalf("after remove: %+v", shown)
	}
}

// deskOrder stores a sandbox usdt_direct order on TRC20 under review for
// hash, as a payer's submit leaves it, with the hash reserved for holder.
func deskOrder(t *testing.T, rdb *redis.Client, hash, holder string) string {
	t.Helper()
	ctx := context.Background()
	store := command.NewStore(rdb, time.Hour, time.Hour)
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: "1001", Sandbox: true, Amount: 100_00,
		Currency: "USD", Method: schema.MethodUSDTDirect, Status: schema.StatusReady, PayableAmount: "100.000123",
		NextAction: schema.NextUSDTDirectPay, Network: "TRC20", CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := store.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	if holder == "" {
		holder = o.ID
	}
	rdb.Set(ctx, schema.USDTTxKey("TRC20", hash), holder, 0)
	if ok, err := store.SubmitUSDTTx(ctx, o.ID, "TRC20", hash, now, now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("submit: %v %v", ok, err)
	}
	return o.ID
}

// shownOrder is what `order show --json` says of a review.
type shownOrder struct {
	Order struct {
		Status int
	} `json:"order"`
	Review struct {
		State   string          `json:"state"`
		Reason  string          `json:"reason"`
		History []usdt.Decision `json:"history"`
	} `json:"review"`
}

// TestUSDTReviewsCLI: the administrator lists orders under review, approves
// one (recorded with who and why, visible in `order show`), cannot approve
// it again or approve a hash another order holds, and rejects one, which
// then shows as failed with the reason the payer reads.
func TestUSDTReviewsCLI(t *testing.T) {
	rdb := testenv.Redis(t)
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURLFor(rdb)}
	h := func(seed string) string { return strings.Repeat(seed, 32) }
	paid, stolen, rejected := deskOrder(t, rdb, h("a1"), ""), deskOrder(t, rdb, h("b2"), "P-another-order"), deskOrder(t, rdb, h("c3"), "")

	var rows []reviewView
	e.cli(&rows, "usdt", "reviews", "--state", "all", "--json")
	if len(rows) != 3 {
		t.Fatalf("all under review: %+v", rows)
	}
	if msg := e.refused("usdt", "approve", paid); !strings.Contains(msg, "--note") {
		t.Fatalf("approve without a note: %s", msg)
	}
	var v reviewView
	e.cli(&v, "usdt", "approve", paid, "--note", "seen on tronscan", "--by", "alice", "--json")
	if v.Status != "paid" || v.Review != usdt.OutcomeApproved {
		t.Fatalf("approved: %+v", v)
	}
	if msg := e.refused("usdt", "approve", paid, "--note", "again"); !strings.Contains(msg, "paid already") {
		t.Fatalf("approve a paid order: %s", msg)
	}
	if msg := e.refused("usdt", "approve", stolen, "--note", "x"); !strings.Contains(msg, "hash already used") {
		t.Fatalf("approve a hash another order holds: %s", msg)
	}
	v = reviewView{}
	e.cli(&v, "usdt", "reject", rejected, "--reason", "amount short by 1 USDT", "--json")
	if v.Status != "ready" || v.Next != schema.NextUSDTDirectPay || v.Reason != "amount short by 1 USDT" || v.TxHash != "" {
		t.Fatalf("rejected: %+v", v)
	}
	e.cli(&rows, "usdt", "reviews", "--state", "failed", "--json")
	if len(rows) != 1 || rows[0].PaymentID != rejected {
		t.Fatalf("failed: %+v", rows)
	}

	var shown shownOrder
	e.cli(&shown, "order", "show", paid, "--json")
	if shown.Order.Status != int(schema.StatusPaid) || shown.Review.State != usdt.OutcomeApproved || len(shown.Review.History) != 1 {
		t.Fatalf("order show: %+v", shown)
	}
	if d := shown.Review.History[0]; d.By != "admin:alice" || d.Note != "seen on tronscan" || d.Outcome != usdt.OutcomeApproved || d.Hash != h("a1") {
		t.Fatalf("recorded decision: %+v", d)
	}
	shown = shownOrder{}
	e.cli(&shown, "order", "show", rejected, "--json")
	if shown.Review.Reason != "amount short by 1 USDT" || len(shown.Review.History) != 1 || shown.Review.History[0].By != "admin:"+osUserName() {
		t.Fatalf("order show of the rejected order: %+v", shown.Review)
	}
}

// TestUSDTConfigSeenWithoutRestart: a gateway's first start seeds the
// networks from GATEWAY_USDT_SANDBOX_NETWORKS; `usdt config set` then
// changes the address a payer is shown while the gateway runs.
func TestUSDTConfigSeenWithoutRestart(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve("GATEWAY_USDT_SANDBOX_NETWORKS=TRC20=" + cliTron)
	var shown []usdt.Network
	e.cli(&shown, "usdt", "config", "show", "--json")
	if len(shown) != 1 || !shown[0].Sandbox || shown[0].Addresses[0] != cliTron {
		t.Fatalf("seeded: %+v", shown)
	}
	p := createParams(shop.AppID)
	p["paymentMethod"], p["currency"] = "usdt_direct", "USD"
	r := s.create(t, p, shop.APIKey)
	if r.Status != 200 {
		t.Fatalf("create: %+v", r)
	}
	id := r.Data["paymentId"].(string)
	c := newPayerClient(t, s.base)
	path := "/payment/" + id + "/usdt-direct"
	c.post(path, url.Values{"action": {"network"}, "network": {"TRC20"}, "csrf": {c.token(path)}})
	if pg := c.get(path); !strings.Contains(pg.body, cliTron) {
		t.Fatalf("the seeded address is not shown:\n%s", pg.body)
	}
	other := "TAnyuZwQdnuFeTeMPikrgLBfrz1raq19iW" // well formed, held by no one we know
	e.run("usdt", "config", "set", "TRC20", "--sandbox", "--address", other)
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return strings.Contains(c.get(path).body, other) })
}
