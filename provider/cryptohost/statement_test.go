package cryptohost_test

import (
	"context"
	"io"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// charge it completed (not the one it failed), and the parser reads it;
// with the fee its cost charged, it reconciles with the payment priced as
// the ledger prices it, and a planted fee difference is found.
func TestStatementFromSimulator(t *testing.T) {
	g := newGateway(t)
	ctx := context.Background()
	var paidRef string
	for _, pay := range []bool{true, false} {
		id := map[bool]string{true: "P-stmt-paid", false: "P-stmt-failed"}[pay]
		in, err := g.ad.Initialise(ctx, testPayment(id))
		if err != nil {
			t.Fatal(err)
		}
		if err := g.sim.Settle(ctx, in.Ref, pay); err != nil {
			t.Fatal(err)
		}
		g.got.WaitFor(t, map[bool]provider.Outcome{true: provider.OutcomePaid, false: provider.OutcomeFailed}[pay])
		if pay {
			paidRef = in.Ref
		}
	}
	lines := providertest.Statement(t, g.srv.Client(), g.srv.URL+"/sandbox/provider/cryptohost/statement",
		func(r io.Reader) ([]recon.Line, error) { return cryptohost.ParseStatement(r, "sandbox") })
	if len(lines) != 1 || lines[0].OrderID != "P-stmt-paid" || lines[0].ProviderRef != paidRef || lines[0].Amount != 100_00 || lines[0].Currency != "USD" {
		t.Fatalf("statement lines %+v", lines)
	}
	providertest.Reconciles(t, lines, recon.Payment{OrderID: "P-stmt-paid", ProviderRef: paidRef, Amount: 100_00, Currency: "USD"})
}
