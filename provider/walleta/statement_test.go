package walleta_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider/internal/providertest"
	walleta "github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// trade it paid (not the one it failed), and the adapter's parser reads
// it; with the fee its cost charged, it reconciles with the payment priced
// as the ledger prices it, and a planted fee difference is found.
func TestStatementFromSimulator(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		id   string
		paid bool
	}{{"P-stmt-paid", true}, {"P-stmt-failed", false}} {
		in, err := h.adapter.Initialise(t.Context(), h.payment(c.id, 12345, "CNY"))
		if err != nil {
			t.Fatal(err)
		}
		settle(t, h, in.Ref, c.paid)
		h.got.Next(t)
	}
	lines := providertest.Statement(t, http.DefaultClient, h.base+"/sandbox/provider/wallet_a/statement",
		func(r io.Reader) ([]recon.Line, error) { return walleta.ParseStatement(r, walleta.SandboxAppID) })
	if len(lines) != 1 || lines[0].OrderID != "P-stmt-paid" || lines[0].Amount != 12345 || lines[0].ProviderRef == "" {
		t.Fatalf("statement lines %+v", lines)
	}
	providertest.Reconciles(t, lines, recon.Payment{OrderID: "P-stmt-paid", ProviderRef: lines[0].ProviderRef, Amount: 12345, Currency: "CNY"})
}
