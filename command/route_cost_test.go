package command

import (
	"context"
	"testing"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestChannelCostReachesTheLedger: the channel an order is routed to
// records its cost on the order at initialisation, and the order's payment
// posts that cost to the channel's own cost account, its receivable less
// it; another channel's cost is never taken.
func TestChannelCostReachesTheLedger(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b")
	r.set(t, "a", channel.Settings{Cost: schema.FeeSchedule{Bps: 200, Fixed: 30}}) // 2 % + 0.30
	r.set(t, "b", channel.Settings{Priority: 1, Cost: schema.FeeSchedule{Bps: 900}})
	o := r.mustReady(t, "100.00")
	if o.Channel != "a" || o.Cost != "200:30:0:0" {
		t.Fatalf("order on %q with cost %q, want a's 200:30:0:0", o.Channel, o.Cost)
	}
	o.Status, o.CompletedAt = schema.StatusPaid, o.UpdatedAt
	tx, err := journal.PaymentTx(o, merchant.DefaultTerms(), journal.Source(o), false)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.New(journal.Config{}, h.rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := j.Post(context.Background(), tx); err != nil || res.Outcome != journal.Posted {
		t.Fatalf("post payment: %+v %v", res, err)
	}
	p, err := j.PlatformBalances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ref := channel.OfOrder(o).String()
	amt, cur := o.Charge()
	if got := p[journal.Cost(ref)][cur]; got != -(amt*2/100 + 30) {
		t.Errorf("cost account of %s: %d, want -%d", ref, got, amt*2/100+30)
	}
	if got := p[journal.Receivable(ref)][cur]; got != -(amt - amt*2/100 - 30) {
		t.Errorf("receivable of %s: %d, want the charge less the cost", ref, got)
	}
	journaltest.Check(t, h.rdb)
}
