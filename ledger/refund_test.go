package ledger

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

func refundOf(o *schema.Order, id string, amt schema.Amount, st schema.RefundStatus) *schema.Refund {
	return &schema.Refund{ID: id, OrderID: o.ID, Amount: amt, Currency: o.Currency, Status: st,
		Kind: schema.RefundKindProvider, Merchant: o.AppID, CreatedMs: paidAt.UnixMilli(), UpdatedMs: paidAt.UnixMilli()}
}

// The ledger role is the refunds' backstop: a succeeded refund the command
// side did not post is posted (once), a failed one is reversed only if its
// debit was posted, a pending one moves nothing.
func TestRefundEventsBackstop(t *testing.T) {
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	run(t, e.poster("a", reg))
	o := e.order("3002", 100_00, "")
	e.emit(schema.EventPaid, o, nil)
	e.emit(schema.EventRefund, o, refundOf(o, "rf_pending", 10_00, schema.RefundPending))
	e.emit(schema.EventRefund, o, refundOf(o, "rf_ok", 30_00, schema.RefundSucceeded))
	e.emit(schema.EventRefund, o, refundOf(o, "rf_ok", 30_00, schema.RefundSucceeded)) // delivered twice
	e.emit(schema.EventRefund, o, refundOf(o, "rf_never", 5_00, schema.RefundFailed))
	// A refund the command side posted, then the provider refused.
	tx, err := journal.RefundTx(o, refundOf(o, "rf_back", 20_00, schema.RefundPending), e.acc["3002"], journal.Source(o))
	if err != nil {
		t.Fatal(err)
	}
	e.caughtUp()
	if _, err := e.j.Post(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	e.emit(schema.EventRefund, o, refundOf(o, "rf_back", 20_00, schema.RefundFailed))
	e.caughtUp()
	all := e.entries()
	for key, want := range map[string]int{"refund:rf_ok": 1, "refund:rf_pending": 0, "refund_reversal:rf_never": 0,
		"refund:rf_back": 1, "refund_reversal:rf_back": 1} {
		if len(all[key]) != want {
			t.Errorf("%s: %d entries, want %d", key, len(all[key]), want)
		}
	}
	if b := e.balance("3002"); b.Available != 70_00 {
		t.Fatalf("available %d, want 70.00 (100 paid, 30 refunded, 20 refunded and reversed)", b.Available)
	}
	if n := counter(t, reg, "gateway_ledger_postings_total", journal.KindRefundReversal, "missing"); n != 1 {
		t.Fatalf("%v missing reversals, want 1 (rf_never)", n)
	}
}

// Balance orders: an own-balance order (created paid, version 1) is the
// command side's; a balance transfer into another merchant's order is
// instant, from platform:transit; a balance refund of an own-balance order
// goes back through platform:spent.
func TestBalanceOrdersAndRefunds(t *testing.T) {
	e := newEnv(t)
	run(t, e.poster("a", nil))
	own := e.order("3001", 40_00, "")
	own.PaidWithBalance, own.Version = true, 1
	e.emit(schema.EventPaid, own, nil)
	xfer := e.order("3001", 25_00, "")
	xfer.PaidWithBalance = true
	e.emit(schema.EventPaid, xfer, nil)
	e.caughtUp()
	all := e.entries()
	if len(all["payment:"+own.ID]) != 0 {
		t.Fatal("an own-balance order was posted by the ledger role")
	}
	pay := all["payment:"+xfer.ID]
	if len(pay) != 1 || !hasLine(pay[0], journal.Transit, -25_00) || !hasLine(pay[0], journal.Merchant("3001", journal.Available), 25_00) {
		t.Fatalf("balance transfer posted as %+v, want transit → available at once", pay)
	}
	r := refundOf(xfer, "rf_spent", 5_00, schema.RefundSucceeded)
	r.Kind, r.Payer = schema.RefundKindBalance, "3001"
	e.emit(schema.EventRefund, xfer, r)
	r2 := refundOf(xfer, "rf_transit", 5_00, schema.RefundSucceeded)
	r2.Kind, r2.Payer = schema.RefundKindBalance, "3009"
	e.emit(schema.EventRefund, xfer, r2)
	e.caughtUp()
	all = e.entries()
	if es := all["refund:rf_spent"]; len(es) != 1 || !hasLine(es[0], journal.Spent, 5_00) {
		t.Fatalf("own balance refund %+v, want platform:spent credited", es)
	}
	if es := all["refund:rf_transit"]; len(es) != 1 || !hasLine(es[0], journal.Transit, 5_00) {
		t.Fatalf("balance refund %+v, want platform:transit credited", es)
	}
}

func hasLine(en journal.Entry, acct string, amt schema.Amount) bool {
	for _, l := range en.Postings {
		if l.Account == acct && l.Amount == amt {
			return true
		}
	}
	return false
}

// A refused posting (a refund the merchant's balance does not cover) is
// counted and acknowledged: the events after it are posted all the same.
func TestRefusedPostingDoesNotBlockTheStream(t *testing.T) {
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	// A claim idle far above the test's pace: with the harness's 50 ms, a
	// loaded machine let the poster take its own unacknowledged entry back
	// and count the refusal twice (at-least-once, rightly; not what this
	// test counts).
	cfg := fastConfig("a")
	cfg.ClaimIdle = 10 * time.Second
	p, err := NewPoster(cfg, e.rdb, e.j, e.acc, reg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	run(t, p)
	o := e.order("3001", 100_00, "")
	e.emit(schema.EventRefund, o, refundOf(o, "rf_uncovered", 50_00, schema.RefundSucceeded))
	after := e.emitPaid("3001", 5)
	e.caughtUp()
	e.onePaymentEach(after)
	if n := counter(t, reg, "gateway_ledger_postings_total", journal.KindRefund, "refused"); n != 1 {
		t.Fatalf("%v refused refunds counted, want 1", n)
	}
	if len(e.entries()["refund:rf_uncovered"]) != 0 {
		t.Fatal("an uncovered refund was posted")
	}
}
