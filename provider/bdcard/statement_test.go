package bdcard_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: each family's simulator lists the session it
// paid (not the one it failed) with the fee its cost charged, under the
// bank transaction id the IPN carried, whose store_amount is the amount
// less that fee; the parser reads it, and it reconciles with the payment
// priced as the ledger prices it (a planted fee difference found).
func TestStatementFromSimulator(t *testing.T) {
	for _, fam := range []string{bdcard.FamilyCard, bdcard.FamilyPSPA} {
		t.Run(fam, func(t *testing.T) {
			h := newHarness(t, fam)
			paid := h.initialise(t, "P2026stmtpaid")
			if err := h.sim.Settle(context.Background(), paid.Ref, true); err != nil {
				t.Fatal(err)
			}
			ipn := h.got.Next(t)
			failed := h.initialise(t, "P2026stmtfail")
			if err := h.sim.Settle(context.Background(), failed.Ref, false); err != nil {
				t.Fatal(err)
			}
			h.got.Next(t)
			lines := providertest.Statement(t, http.DefaultClient, h.base+"/sandbox/provider/"+fam+"/statement",
				func(r io.Reader) ([]recon.Line, error) { return bdcard.ParseStatement(r, "") })
			fee := providertest.StatementSchedule.Fee(1215000)
			form, _ := url.ParseQuery(ipn.body)
			if len(lines) != 1 || lines[0].OrderID != "P2026stmtpaid" || lines[0].ProviderRef != ipn.n.Ref || lines[0].Amount != 1215000 ||
				lines[0].Fee != fee || lines[0].Currency != "BDT" || form.Get("store_amount") != (1215000-fee).String() {
				t.Fatalf("statement lines %+v (IPN ref %s, store_amount %s)", lines, ipn.n.Ref, form.Get("store_amount"))
			}
			providertest.Reconciles(t, lines, recon.Payment{OrderID: "P2026stmtpaid", ProviderRef: ipn.n.Ref, Amount: 1215000, Currency: "BDT"})
		})
	}
}
