package walletb_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/provider/walletb"
)

// TestStatementFromSimulator: the simulator's statement of today lists the
// transaction it paid (not the one it failed), and the adapter's parser reads it.
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
	resp, err := http.Get(h.base + "/sandbox/provider/wallet_b/statement?date=" + time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	lines, err := walletb.ParseStatement(strings.NewReader(string(body)), walletb.SandboxMerchantID)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if len(lines) != 1 || lines[0].OrderID != "P-stmt-paid" || lines[0].Amount != 12345 || lines[0].ProviderRef == "" {
		t.Fatalf("statement lines %+v", lines)
	}
}
