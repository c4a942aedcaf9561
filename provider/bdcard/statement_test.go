package bdcard_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/recon"
)

// TestStatementFromSimulator: each family's simulator lists the session it
// paid (not the one it failed) with the store's 2.5 % fee kept, under the
// bank transaction id the IPN carried; the parser reads it.
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
			if len(lines) != 1 || lines[0].OrderID != "P2026stmtpaid" || lines[0].ProviderRef != ipn.n.Ref || lines[0].Amount != 1215000 ||
				lines[0].Fee != 30375 || lines[0].Currency != "BDT" {
				t.Fatalf("statement lines %+v (IPN ref %s)", lines, ipn.n.Ref)
			}
		})
	}
}
