package reviewer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// laterCase is a review that cannot be decided at first: it is checked
// again (rescheduled, not decided) until then changes what the backends
// say, or, without then, until the review window ends.
type laterCase struct {
	name    string
	network usdt.Network
	mode    usdt.Mode
	first   func(t *testing.T, e *env, o *schema.Order)
	then    func(t *testing.T, e *env, o *schema.Order)
	outcome string
	reason  string
	errors  string // the backend whose errors are counted, if any
	wait    string // the review state recorded between the checks (with then)
}

func putTx(change func(*usdt.Tx)) func(*testing.T, *env, *schema.Order) {
	return func(t *testing.T, e *env, o *schema.Order) {
		n, _ := e.nets.Lookup(o.Network, o.Sandbox)
		tx := goodTx(t, o, n)
		change(&tx)
		e.chain(o.Network).set(tx, nil)
	}
}

func putDeposit(change func(*usdt.Deposit)) func(*testing.T, *env, *schema.Order) {
	return func(t *testing.T, e *env, o *schema.Order) {
		n, _ := e.nets.Lookup(o.Network, o.Sandbox)
		d := goodDeposit(o, n)
		change(&d)
		e.be.exch.putDeposit(d)
	}
}

func nothing(*testing.T, *env, *schema.Order) {}

func TestReviewCheckedAgainLater(t *testing.T) {
	chainDown := func(t *testing.T, e *env, o *schema.Order) { e.chain(o.Network).set(usdt.Tx{}, errBackendDown) }
	cases := []laterCase{
		{name: "too few confirmations then enough", network: trc20, mode: usdt.ModeChain,
			first: putTx(func(tx *usdt.Tx) { tx.Confirmations = 29 }), then: putTx(keep[usdt.Tx]), outcome: "approve", wait: schema.ReviewConfirming},
		{name: "BEP20 too few confirmations then enough", network: bep20, mode: usdt.ModeChain,
			first: putTx(func(tx *usdt.Tx) { tx.Confirmations = 1 }), then: putTx(keep[usdt.Tx]), outcome: "approve", wait: schema.ReviewConfirming},
		{name: "transaction not found then found", network: trc20, mode: usdt.ModeChain,
			first: nothing, then: putTx(keep[usdt.Tx]), outcome: "approve", wait: schema.ReviewNotFound},
		{name: "not found then found with the wrong amount", network: bep20, mode: usdt.ModeChain,
			first: nothing, then: putTx(func(tx *usdt.Tx) { tx.Transfers[0].Units.SetInt64(12) }), outcome: "reject", reason: "wrong_amount", wait: schema.ReviewNotFound},
		{name: "exchange row missing then present", network: trc20, mode: usdt.ModeExchange,
			first: nothing, then: putDeposit(keep[usdt.Deposit]), outcome: "approve", wait: schema.ReviewNotFound},
		{name: "exchange deposit not credited then credited", network: trc20, mode: usdt.ModeExchange,
			first: putDeposit(func(d *usdt.Deposit) { d.Success = false }), then: putDeposit(keep[usdt.Deposit]), outcome: "approve", wait: schema.ReviewConfirming},
		{name: "dual: exchange row missing then present", network: bep20, mode: usdt.ModeDual,
			first: putTx(keep[usdt.Tx]), then: putDeposit(keep[usdt.Deposit]), outcome: "approve", wait: schema.ReviewNotFound},
		{name: "exchange pay missing then present", network: trc20, mode: usdt.ModeExchangePay,
			first: nothing, then: func(t *testing.T, e *env, o *schema.Order) { e.be.exch.putPayment(goodPayment(o)) }, outcome: "approve", wait: schema.ReviewNotFound},
		{name: "chain down until the window ends", network: trc20, mode: usdt.ModeChain,
			first: chainDown, outcome: "escalate", reason: "backend_down", errors: backendChain},
		{name: "exchange down until the window ends", network: trc20, mode: usdt.ModeExchange,
			first: func(t *testing.T, e *env, o *schema.Order) { e.be.exch.err = errBackendDown }, outcome: "escalate", reason: "backend_down", errors: backendExchange},
		{name: "dual: chain agrees, exchange down until the window ends", network: bep20, mode: usdt.ModeDual,
			first: func(t *testing.T, e *env, o *schema.Order) {
				putTx(keep[usdt.Tx])(t, e, o)
				e.be.exch.err = errBackendDown
			}, outcome: "escalate", reason: "backend_down", errors: backendExchange},
		{name: "too few confirmations until the window ends", network: trc20, mode: usdt.ModeChain,
			first: putTx(func(tx *usdt.Tx) { tx.Confirmations = 3 }), outcome: "escalate", reason: "unconfirmed"},
		{name: "never found by the window's end", network: bep20, mode: usdt.ModeChain,
			first: nothing, outcome: "escalate", reason: "unconfirmed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.nets.setMode(tc.network.Name, tc.mode)
			o := e.newOrder(tc.network.Name, "7.000123", "0xhash-"+strings.ReplaceAll(tc.name, " ", "-"))
			tc.first(t, e, o)
			cfg := testConfig()
			if tc.then == nil {
				// The window ends a moment from now (it counts from the submit).
				cfg.Window = time.Since(o.UpdatedAt) + 300*time.Millisecond
			}
			r := e.start(cfg, nil)
			if tc.then != nil {
				testenv.Eventually(t, 10*time.Second, "checked again twice", func() bool { return e.orders.rescheduled(o.ID) >= 2 })
				if got := e.outcomesOf(o.ID); len(got) != 0 || !e.queued(o.ID) {
					t.Fatalf("decided %+v before the backends could tell (queued: %v)", got, e.queued(o.ID))
				}
				checkProgress(t, e, o.ID, tc)
				tc.then(t, e, o)
			}
			got := e.decided(o.ID)
			if got.Outcome != tc.outcome || got.D.Reason != tc.reason {
				t.Fatalf("outcome %s %q, want %s %q (evidence %q, note %q)", got.Outcome, got.D.Reason, tc.outcome, tc.reason, got.D.Evidence, got.D.Note)
			}
			if tc.then == nil && e.orders.rescheduled(o.ID) == 0 {
				t.Fatal("escalated without checking again first")
			}
			if tc.reason == "backend_down" && !strings.Contains(got.D.Note, errBackendDown.Error()) {
				t.Fatalf("note %q does not say what failed", got.D.Note)
			}
			if m := metricValue(t, r.reg, "gateway_usdt_reviews_total", map[string]string{"mode": string(tc.mode), "outcome": outRetry}); m < 1 {
				t.Fatalf("%v retries counted", m)
			}
			if tc.errors != "" {
				if m := metricValue(t, r.reg, "gateway_usdt_review_errors_total", map[string]string{"backend": tc.errors}); m < 1 {
					t.Fatalf("%v %s errors counted", m, tc.errors)
				}
			}
		})
	}
}

// checkProgress: between the checks the order says where its review stands,
// so the payer is never left guessing: the state, the next check, the
// window's end, and on a chain the confirmations seen of those required.
func checkProgress(t *testing.T, e *env, id string, tc laterCase) {
	t.Helper()
	var o *schema.Order
	testenv.Eventually(t, 10*time.Second, "progress "+tc.wait+" recorded", func() bool {
		var err error
		o, err = e.orders.Order(context.Background(), id)
		return err == nil && o.ReviewProgress.Step == tc.wait // not "checking", the moment of a check
	})
	p := o.ReviewProgress
	if p.Step != tc.wait || p.NextCheck.IsZero() || p.Until.IsZero() || !p.Until.After(p.NextCheck.Add(-time.Second)) {
		t.Fatalf("progress %+v, want %s with the next check and the window's end", p, tc.wait)
	}
	chainCount := tc.wait == schema.ReviewConfirming && tc.mode == usdt.ModeChain
	if chainCount && (p.Required == 0 || p.Confirmations >= p.Required || p.Confirmations == 0) {
		t.Fatalf("confirmations %d of %d", p.Confirmations, p.Required)
	}
	if v := schema.USDTReviewOf(o); v == nil || v.State != tc.wait || v.NextCheckAt == "" || v.CheckUntil == "" {
		t.Fatalf("review view %+v", v)
	}
}

func TestBackoffFollowsTheTimeSinceSubmit(t *testing.T) {
	cfg := Defaults()
	cases := []struct {
		name    string
		elapsed time.Duration
		want    time.Duration
	}{
		{"just submitted", 0, 10 * time.Second},
		{"after the first check", 10 * time.Second, 30 * time.Second},
		{"after the second", 40 * time.Second, time.Minute},
		{"after the third", 100 * time.Second, 2 * time.Minute},
		{"after the fourth", 220 * time.Second, 5 * time.Minute},
		{"hours later, capped", 5 * time.Hour, 5 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := cfg.delay(tc.elapsed); got != tc.want {
				t.Fatalf("delay after %s = %s, want %s", tc.elapsed, got, tc.want)
			}
		})
	}
}
