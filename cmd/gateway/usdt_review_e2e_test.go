package main

import (
	"context"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	bscsim "github.com/paygate/gateway/web/sandbox/usdt/bsc"
	exchangesim "github.com/paygate/gateway/web/sandbox/usdt/exchange"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// shown is `gateway order show --json`, the parts these tests read.
type shown struct {
	Order struct {
		Status       int
		NextAction   string
		Review       string
		ReviewReason string
		CreatedAt    time.Time
	} `json:"order"`
	Review *struct {
		History []usdt.Decision `json:"history"`
	} `json:"review"`
}

// TestUSDTReviewsEndToEnd: the real binary with the reviewer role reviews
// sandbox usdt_direct orders against its simulated chains and exchange, over
// their real clients; the test writes the transfers into the simulators'
// shared state, as a payer's wallet would on a chain.
func TestUSDTReviewsEndToEnd(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate")
	var m account
	e.cli(&m, "merchant", "create", "--name", "usdt", "--sandbox", "--json")
	s := e.serve("GATEWAY_ROLES=command,query,projector,dispatcher,reviewer")
	st := provider.NewRedisState(testenv.Client(t, e.redisURL))
	tronSim, bscSim, exSim := tronsim.NewSim(tronsim.SimConfig{}, st), bscsim.NewSim(bscsim.SimConfig{}, st), exchangesim.NewSim(exchangesim.SimConfig{}, st)
	addr := map[string]string{}
	for _, n := range command.SandboxUSDTNetworks() {
		addr[n.Name] = n.Address
	}
	ctx := context.Background()

	// order creates a sandbox usdt_direct order, picks network on its page,
	// and returns it with its payable amount in units of decimals.
	type order struct {
		id      string
		payable string
		units   *big.Int
		created time.Time
		c       *payerClient
		tok     string
	}
	newOrderOf := func(t *testing.T, network string, decimals int, amount string) order {
		t.Helper()
		p := createParams(m.AppID)
		p["paymentMethod"], p["currency"], p["amount"] = "usdt_direct", "USD", amount
		r := s.create(t, p, m.APIKey)
		if r.Status != 200 {
			t.Fatalf("create: %+v", r)
		}
		o := order{id: r.Data["paymentId"].(string), payable: r.Data["payableAmount"].(string), c: newPayerClient(t, s.base)}
		var err error
		o.units, err = usdt.Units(o.payable, decimals)
		if err != nil {
			t.Fatal(err)
		}
		var sh shown
		e.cli(&sh, "order", "show", o.id, "--json")
		o.created = sh.Order.CreatedAt
		o.tok = o.c.token("/payment/" + o.id + "/usdt-direct")
		if pg := o.c.post("/payment/"+o.id+"/usdt-direct", url.Values{"action": {"network"}, "network": {network}, "csrf": {o.tok}}); pg.code != 303 {
			t.Fatalf("network: %d %s", pg.code, pg.body)
		}
		return o
	}
	newOrder := func(t *testing.T, network string, decimals int) order {
		t.Helper()
		return newOrderOf(t, network, decimals, "25.00")
	}
	trySubmit := func(o order, hash string) page {
		return o.c.post("/payment/"+o.id+"/usdt-direct", url.Values{"action": {"hash"}, "txhash": {hash}, "csrf": {o.tok}})
	}
	submit := func(t *testing.T, o order, hash string) {
		t.Helper()
		if pg := trySubmit(o, hash); pg.code != 303 {
			t.Fatalf("submit: %d %s", pg.code, pg.body)
		}
	}
	// decided waits for the review to leave the automatic queue.
	decided := func(t *testing.T, o order) shown {
		t.Helper()
		var sh shown
		testenv.Eventually(t, 20*time.Second, "condition", func() bool {
			e.cli(&sh, "order", "show", o.id, "--json")
			return sh.Order.NextAction != schema.NextUSDTReview || sh.Order.Review == usdt.OutcomeWaiting
		})
		return sh
	}
	tronTx := func(t *testing.T, spec tronsim.TransferSpec) string {
		t.Helper()
		h, err := tronSim.AddTransfer(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	one := big.NewInt(1)
	cases := []struct {
		name     string
		network  string
		transfer func(t *testing.T, o order) string
		status   int
		review   string
		reason   string
	}{
		{"TRC20 exact amount: approved, paid", "TRC20", func(t *testing.T, o order) string {
			return tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: o.units, Success: true})
		}, 2, usdt.OutcomeApproved, ""},
		{"TRC20 one micro-USDT short", "TRC20", func(t *testing.T, o order) string {
			return tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: new(big.Int).Sub(o.units, one), Success: true})
		}, 1, usdt.OutcomeRejected, "wrong_amount"},
		{"TRC20 to another address", "TRC20", func(t *testing.T, o order) string {
			return tronTx(t, tronsim.TransferSpec{To: simTronPayer, Units: o.units, Success: true})
		}, 1, usdt.OutcomeRejected, "wrong_address"},
		{"TRC20 another token", "TRC20", func(t *testing.T, o order) string {
			return tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Contract: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR", Units: o.units, Success: true})
		}, 1, usdt.OutcomeRejected, "wrong_token"},
		{"TRC20 failed transaction", "TRC20", func(t *testing.T, o order) string {
			return tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: o.units, Success: false})
		}, 1, usdt.OutcomeRejected, "failed_tx"},
		{"TRC20 older than the order", "TRC20", func(t *testing.T, o order) string {
			return tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: o.units, Success: true, At: o.created.Add(-time.Hour)})
		}, 1, usdt.OutcomeRejected, "too_old"},
		{"BEP20 exact at 18 decimals: approved", "BEP20", func(t *testing.T, o order) string {
			h, err := bscSim.AddTransfer(ctx, bscsim.TransferSpec{To: addr["BEP20"], Units: o.units, Success: true})
			if err != nil {
				t.Fatal(err)
			}
			return h
		}, 2, usdt.OutcomeApproved, ""},
		{"BEP20 one unit short at 18 decimals", "BEP20", func(t *testing.T, o order) string {
			h, err := bscSim.AddTransfer(ctx, bscsim.TransferSpec{To: addr["BEP20"], Units: new(big.Int).Sub(o.units, one), Success: true})
			if err != nil {
				t.Fatal(err)
			}
			return h
		}, 1, usdt.OutcomeRejected, "wrong_amount"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dec := 6
			if tc.network == "BEP20" {
				dec = 18
			}
			o := newOrder(t, tc.network, dec)
			submit(t, o, tc.transfer(t, o))
			sh := decided(t, o)
			if sh.Order.Status != tc.status || sh.Order.Review != tc.review || sh.Order.ReviewReason != tc.reason {
				t.Fatalf("order status %d review %q reason %q, want %d %q %q", sh.Order.Status, sh.Order.Review, sh.Order.ReviewReason, tc.status, tc.review, tc.reason)
			}
			if tc.review == usdt.OutcomeRejected && sh.Order.NextAction != schema.NextUSDTDirectPay {
				t.Errorf("a rejected order is not payable again: next %q", sh.Order.NextAction)
			}
			if sh.Review == nil || len(sh.Review.History) != 1 || sh.Review.History[0].Outcome != tc.review {
				t.Errorf("history %+v", sh.Review)
			}
		})
	}

	t.Run("exchange mode, and dual disagreeing decided by an administrator", func(t *testing.T) {
		e.cli(nil, "usdt", "config", "set", "TRC20", "--sandbox", "--address", addr["TRC20"], "--confirmations", "1", "--mode", "exchange", "--json")
		time.Sleep(time.Second) // every process reloads within half a second
		o := newOrder(t, "TRC20", 6)
		h := tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: o.units, Success: true})
		if err := exSim.AddDeposit(ctx, exchangesim.DepositSpec{TxID: h, Network: "TRX", Address: addr["TRC20"], Amount: o.payable, Status: 1}); err != nil {
			t.Fatal(err)
		}
		submit(t, o, h)
		if sh := decided(t, o); sh.Order.Status != 2 || sh.Order.Review != usdt.OutcomeApproved {
			t.Fatalf("exchange mode: %+v", sh.Order)
		}

		e.cli(nil, "usdt", "config", "set", "TRC20", "--sandbox", "--mode", "dual", "--json")
		time.Sleep(time.Second)
		o = newOrder(t, "TRC20", 6)
		h = tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: o.units, Success: true})
		if err := exSim.AddDeposit(ctx, exchangesim.DepositSpec{TxID: h, Network: "TRX", Address: addr["TRC20"], Amount: "1.000000", Status: 1}); err != nil {
			t.Fatal(err)
		}
		submit(t, o, h)
		sh := decided(t, o)
		if sh.Order.Review != usdt.OutcomeWaiting || sh.Order.ReviewReason != "disagree" || sh.Order.Status != 1 {
			t.Fatalf("dual disagreeing: %+v", sh.Order)
		}
		e.run("usdt", "approve", o.id, "--note", "deposit checked by hand", "--by", "alice")
		e.cli(&sh, "order", "show", o.id, "--json")
		if sh.Order.Status != 2 || len(sh.Review.History) != 2 || sh.Review.History[1].By != "admin:alice" {
			t.Fatalf("after the administrator: %+v %+v", sh.Order, sh.Review)
		}
	})

	// Transfers to our address are public (a security review finding). An
	// attacker submits the victim's 500 USDT transfer on their own 10 USD
	// order first; the review rejects it (wrong_amount) and hands the hash to
	// the order its exact amount names, or frees it for the victim's own
	// submit, or an administrator attaches it: each way the victim's order
	// ends paid and the attacker's does not.
	t.Run("front-running: the hash ends up paying the order it pays", func(t *testing.T) {
		e.cli(nil, "usdt", "config", "set", "TRC20", "--sandbox", "--address", addr["TRC20"], "--confirmations", "1", "--mode", "chain", "--json")
		time.Sleep(time.Second)
		for _, how := range []string{"the review moves it", "the victim submits it", "an administrator attaches it"} {
			t.Run(how, func(t *testing.T) {
				attacker, victim := newOrderOf(t, "TRC20", 6, "10.00"), newOrderOf(t, "TRC20", 6, "500.00")
				h := tronTx(t, tronsim.TransferSpec{To: addr["TRC20"], Units: victim.units, Success: true})
				if how == "an administrator attaches it" {
					submit(t, victim, strings.Repeat("7f", 32)) // the victim pasted a wrong hash
				}
				submit(t, attacker, h)
				if sh := decided(t, attacker); sh.Order.Review != usdt.OutcomeRejected || sh.Order.ReviewReason != "wrong_amount" {
					t.Fatalf("attacker's order: %+v", sh.Order)
				}
				switch how {
				case "the victim submits it": // moved already, or not yet: either way accepted
					if pg := trySubmit(victim, h); pg.code != 303 {
						t.Fatalf("the victim's submit of their own transfer: %d %s", pg.code, pg.body)
					}
				case "an administrator attaches it":
					e.run("usdt", "attach", victim.id, h, "--note", "payer wrote to support with the transfer", "--by", "alice")
				}
				var sh shown
				testenv.Eventually(t, 20*time.Second, "condition", func() bool {
					e.cli(&sh, "order", "show", victim.id, "--json")
					return sh.Order.Status == 2
				})
				if sh.Order.Review != usdt.OutcomeApproved {
					t.Fatalf("victim's order: %+v", sh.Order)
				}
				e.cli(&sh, "order", "show", attacker.id, "--json")
				if sh.Order.Status == 2 {
					t.Fatalf("the attacker's order was paid: %+v", sh.Order)
				}
				if pg := trySubmit(attacker, h); pg.code == 303 {
					t.Fatal("the attacker could take the paid transfer back")
				}
			})
		}
	})

	// The payer is never left guessing: a hash that matches nothing is "not
	// found yet" with its next check, on the payer's page, in action=order, in
	// `order show` and on the desk; an administrator's rejection reason then
	// reaches the payer (escaped, in every language) and the merchant.
	t.Run("review state at every moment, and the administrator's reason", func(t *testing.T) {
		o := newOrder(t, "TRC20", 6)
		submit(t, o, strings.Repeat("5e", 32)) // on no chain
		var rep struct {
			Review struct {
				State, Reason, Detail string
			} `json:"review"`
		}
		testenv.Eventually(t, 20*time.Second, "condition", func() bool {
			e.cli(&rep, "order", "show", o.id, "--json")
			return rep.Review.State == schema.ReviewNotFound
		})
		if !strings.Contains(rep.Review.Detail, "next check 20") {
			t.Fatalf("order show --json: %+v", rep.Review)
		}
		show := exec.Command(e.bin, "order", "show", o.id)
		show.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL, "GATEWAY_CLICKHOUSE_DSN="+e.chDSN)
		out, err := show.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "usdt review  not_found (not_found)") || strings.Contains(string(out), `state ""`) {
			t.Fatalf("order show: %v\n%s", err, out)
		}
		if pg := o.c.get("/payment/" + o.id + "/usdt-direct"); !strings.Contains(pg.body, "We have not found this transaction yet; we keep checking until 20") ||
			!strings.Contains(pg.body, `data-review-state="not_found"`) {
			t.Fatalf("payer page:\n%s", pg.body)
		}
		q := s.order(t, m.AppID, m.QueryKey, o.id)
		if rv, _ := q.Data["usdtReview"].(map[string]any); rv["state"] != schema.ReviewNotFound || rv["nextCheckAt"] == nil || rv["checkUntil"] == nil {
			t.Fatalf("action=order: %+v", q.Data)
		}
		var rows []reviewView
		e.cli(&rows, "usdt", "reviews", "--state", "all", "--json")
		found := false
		for _, r := range rows {
			found = found || r.PaymentID == o.id && r.State == schema.ReviewNotFound && r.NextCheck != ""
		}
		if !found {
			t.Fatalf("usdt reviews: %+v", rows)
		}

		why := `Sent to <b>another</b> address; write to support@shop.test`
		e.run("usdt", "reject", o.id, "--reason", why, "--by", "alice")
		escaped := `Sent to &lt;b&gt;another&lt;/b&gt; address; write to support@shop.test`
		for lang, words := range map[string]string{"": "The reviewer wrote: “", "/zh": "审核人员说明：“", "/es": "El revisor escribió: «"} {
			pg := o.c.get(lang + "/payment/" + o.id + "/usdt-direct")
			if !strings.Contains(pg.body, words+escaped) || strings.Contains(pg.body, "<b>another") {
				t.Fatalf("payer page %q:\n%s", lang, pg.body)
			}
		}
		q = s.order(t, m.AppID, m.QueryKey, o.id)
		if rv, _ := q.Data["usdtReview"].(map[string]any); rv["state"] != schema.ReviewRejected || rv["reason"] != why || rv["byAdministrator"] != true {
			t.Fatalf("action=order after the rejection: %+v", q.Data["usdtReview"])
		}
	})
}
