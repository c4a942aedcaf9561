package bdpspb_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider/bdpspb"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// payment it paid (not the one it failed), and the parser reads it; with
// the fee its cost charged, it reconciles with the payment priced as the
// ledger prices it, and a planted fee difference is found.
func TestStatementFromSimulator(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	paid, failed := h.initialise(t, "P2026Bstpaid"), h.initialise(t, "P2026Bstfail")
	if err := h.sim.Settle(ctx, paid.Ref, true); err != nil {
		t.Fatal(err)
	}
	h.got.Next(t)
	if err := h.sim.Settle(ctx, failed.Ref, false); err != nil {
		t.Fatal(err)
	}
	h.got.Next(t)
	lines := providertest.Statement(t, http.DefaultClient, h.base+"/sandbox/provider/"+bdpspb.Family+"/statement",
		func(r io.Reader) ([]recon.Line, error) { return bdpspb.ParseStatement(r, "") })
	if len(lines) != 1 || lines[0].OrderID != "P2026Bstpaid" || lines[0].ProviderRef != paid.Ref || lines[0].Amount != 1215000 || lines[0].Currency != "BDT" {
		t.Fatalf("statement lines %+v", lines)
	}
	providertest.Reconciles(t, lines, recon.Payment{OrderID: "P2026Bstpaid", ProviderRef: paid.Ref, Amount: 1215000, Currency: "BDT"})
}
