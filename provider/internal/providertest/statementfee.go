package providertest

import (
	"testing"

	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

// StatementSchedule is the cost the statement tests' simulators charge
// (simkit.FixedCost of it): 1.5 % and 0.30, odd enough that a fee computed
// any other way shows.
var StatementSchedule = schema.FeeSchedule{Bps: 150, Fixed: 30}

// Reconciles matches a statement's lines against our one payment p
// (OrderID, ProviderRef, Amount, Currency), priced as the ledger prices it
// (the channel's cost on the charged amount): every line matched, no
// finding. Then with the payment priced under another cost, a planted fee
// difference: one fee_differs, the line still matched, nothing else.
func Reconciles(t testing.TB, lines []recon.Line, p recon.Payment) {
	t.Helper()
	p.Fee = StatementSchedule.Fee(p.Amount)
	if r := recon.Match(lines, []recon.Payment{p}); len(r.Matched) != 1 || len(r.Findings) != 0 {
		t.Fatalf("statement %+v against payment %+v: %d matched, findings %+v; want matched, none", lines, p, len(r.Matched), r.Findings)
	}
	p.Fee = schema.FeeSchedule{Bps: 200, Fixed: 30}.Fee(p.Amount)
	r := recon.Match(lines, []recon.Payment{p})
	if len(r.Matched) != 1 || len(r.Findings) != 1 || r.Findings[0].Kind != recon.FeeDiffers {
		t.Fatalf("a planted fee difference: %d matched, findings %+v; want matched with one fee_differs", len(r.Matched), r.Findings)
	}
}
