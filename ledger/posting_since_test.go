package ledger

import (
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestBeforeJournalSkipsOldBalanceMoves: a balance transfer or balance
// refund that ended before the journal took over moved the old balances
// (carried by the opening entries) and is not posted again; a provider
// payment of then is, and so is everything after.
func TestBeforeJournalSkipsOldBalanceMoves(t *testing.T) {
	since := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	before, after := since.Add(-time.Minute), since.Add(time.Minute)
	refund := func(at time.Time) *schema.Refund {
		return &schema.Refund{Kind: schema.RefundKindBalance, Status: schema.RefundSucceeded, UpdatedMs: at.UnixMilli()}
	}
	cases := []struct {
		name string
		ev   schema.Event
		skip bool
	}{
		{"transfer paid before", schema.Event{Type: schema.EventPaid, At: before, Order: schema.Order{PaidWithBalance: true}}, true},
		{"transfer paid after", schema.Event{Type: schema.EventPaid, At: after, Order: schema.Order{PaidWithBalance: true}}, false},
		{"provider payment before", schema.Event{Type: schema.EventPaid, At: before}, false},
		{"balance refund before", schema.Event{Type: schema.EventRefund, At: before, Refund: refund(before)}, true},
		{"balance refund after", schema.Event{Type: schema.EventRefund, At: after, Refund: refund(after)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := beforeJournal(&c.ev, since); got != c.skip {
				t.Fatalf("skip %v, want %v", got, c.skip)
			}
		})
	}
	if beforeJournal(&cases[0].ev, time.Time{}) {
		t.Fatal("no recorded start skips nothing")
	}
}
