package fiatpsp_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/paygate/gateway/provider/fiatpsp"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// order it paid (not the one it failed), and the parser reads it; with the
// fee its cost charged, it reconciles with the payment priced as the ledger
// prices it, and a planted fee difference is found.
func TestStatementFromSimulator(t *testing.T) {
	h := startHarness(t, nil)
	paid := h.initialise(t, h.payment("P-stmt-paid", "36"))
	if err := h.sim.Settle(context.Background(), paid.Ref, true); err != nil {
		t.Fatal(err)
	}
	h.got.Next(t)
	failed := h.initialise(t, h.payment("P-stmt-failed", "36"))
	if err := h.sim.Settle(context.Background(), failed.Ref, false); err != nil {
		t.Fatal(err)
	}
	lines := providertest.Statement(t, http.DefaultClient, h.base+simMount+"/statement",
		func(r io.Reader) ([]recon.Line, error) {
			return fiatpsp.ParseStatement(r, strconv.FormatInt(fiatpsp.SandboxShopID, 10))
		})
	if len(lines) != 1 || lines[0].OrderID != "P-stmt-paid" || lines[0].ProviderRef != paid.Ref || lines[0].Amount != 150050 || lines[0].Currency != "RUB" {
		t.Fatalf("statement lines %+v", lines)
	}
	providertest.Reconciles(t, lines, recon.Payment{OrderID: "P-stmt-paid", ProviderRef: paid.Ref, Amount: 150050, Currency: "RUB"})
}
