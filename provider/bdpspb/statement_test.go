package bdpspb_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/provider/bdpspb"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// payment it paid (not the one it failed), and the parser reads it.
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
	resp, err := http.Get(h.base + "/sandbox/provider/" + bdpspb.Family + "/statement?date=" + time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	lines, err := bdpspb.ParseStatement(strings.NewReader(string(body)), "")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if len(lines) != 1 || lines[0].OrderID != "P2026Bstpaid" || lines[0].ProviderRef != paid.Ref || lines[0].Amount != 1215000 || lines[0].Currency != "BDT" {
		t.Fatalf("statement lines %+v", lines)
	}
}
