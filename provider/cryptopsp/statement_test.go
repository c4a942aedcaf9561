package cryptopsp_test

import (
	"context"
	"io"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/cryptopsp"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// invoice it finished (not the one it failed) under the payment's
// reference, and the parser reads it; with the fee its cost charged, it
// reconciles with the payment priced as the ledger prices it, and a planted
// fee difference is found.
func TestStatementFromSimulator(t *testing.T) {
	g := newGateway(t)
	ctx := context.Background()
	var paidRef string
	for _, pay := range []bool{true, false} {
		id := map[bool]string{true: "P-stmt-paid", false: "P-stmt-failed"}[pay]
		in, err := g.ad.Initialise(ctx, g.payment(id, "BTC", 100_00))
		if err != nil {
			t.Fatal(err)
		}
		if err := g.sim.Settle(ctx, in.Ref, pay); err != nil {
			t.Fatal(err)
		}
		d := g.got.WaitFor(t, map[bool]provider.Outcome{true: provider.OutcomePaid, false: provider.OutcomeFailed}[pay])
		if pay {
			paidRef = d.N.Ref
		}
	}
	lines := providertest.Statement(t, g.srv.Client(), g.srv.URL+"/sandbox/provider/cryptopsp/statement",
		func(r io.Reader) ([]recon.Line, error) { return cryptopsp.ParseStatement(r, "sandbox") })
	if len(lines) != 1 || lines[0].OrderID != "P-stmt-paid" || lines[0].ProviderRef != paidRef || lines[0].Amount != 100_00 || lines[0].Currency != "USD" {
		t.Fatalf("statement lines %+v (paid ref %s)", lines, paidRef)
	}
	providertest.Reconciles(t, lines, recon.Payment{OrderID: "P-stmt-paid", ProviderRef: paidRef, Amount: 100_00, Currency: "USD"})
}
