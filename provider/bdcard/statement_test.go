package bdcard_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/provider/bdcard"
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
			resp, err := http.Get(h.base + "/sandbox/provider/" + fam + "/statement?date=" + time.Now().UTC().Format(time.DateOnly))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			lines, err := bdcard.ParseStatement(strings.NewReader(string(body)), "")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
			}
			if len(lines) != 1 || lines[0].OrderID != "P2026stmtpaid" || lines[0].ProviderRef != ipn.n.Ref || lines[0].Amount != 1215000 ||
				lines[0].Fee != 30375 || lines[0].Currency != "BDT" {
				t.Fatalf("statement lines %+v (IPN ref %s)", lines, ipn.n.Ref)
			}
		})
	}
}
