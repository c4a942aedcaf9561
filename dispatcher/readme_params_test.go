package dispatcher

import (
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// readmeParams reads the README's table whose first header cell is header:
// the parameter names of its rows, all of them or only those sent always.
func readmeParams(t *testing.T, header string, optional bool) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		cells := strings.Split(strings.Trim(line, "|"), "|")
		switch {
		case !in:
			in = strings.HasPrefix(line, "|") && strings.TrimSpace(cells[0]) == header
		case !strings.HasPrefix(line, "|"):
			return names
		case strings.HasPrefix(line, "|---"):
		default:
			if len(cells) < 2 {
				t.Fatalf("README table %q: row %q has no Sent column", header, line)
			}
			name := strings.Trim(strings.TrimSpace(cells[0]), "`")
			if optional || strings.TrimSpace(cells[1]) == "always" {
				names = append(names, name)
			}
		}
	}
	if !in {
		t.Fatalf("the README has no table headed %q", header)
	}
	return names
}

// sentNames are the parameter names of a webhook body as send makes it.
func sentNames(t *testing.T, p schema.Params) []string {
	t.Helper()
	body, err := signForm(encodeCallback(p), "KEY")
	if err != nil {
		t.Fatal(err)
	}
	form, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range form {
		names = append(names, k)
	}
	return names
}

// TestWebhookParametersAreTheREADMEs: each webhook's parameter set is
// exactly the README's table of it ("Webhook parameters", "Refunds"), the
// optional rows present when the order or refund has them and absent when
// not, so that a receiver refusing anything else (as the README tells an
// MD5-only receiver to) refuses none of ours.
func TestWebhookParametersAreTheREADMEs(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	bare := &schema.Order{ID: "P1", Amount: 100_50, Currency: "USD", Method: schema.MethodWalletA,
		CreatedAt: at, UpdatedAt: at, CompletedAt: at, Refunded: 30_00}
	full := *bare
	full.Description, full.ClientOrderID = "tea", "C-1"
	refund := &schema.Refund{ID: "rf_1", OrderID: "P1", Amount: 30_00, Currency: "USD", Status: schema.RefundSucceeded,
		CreatedMs: at.UnixMilli(), UpdatedMs: at.UnixMilli()}
	fullRefund := *refund
	fullRefund.ClientRefundID, fullRefund.Reason = "R-1", "returned"
	const paid, refunded = "Paid callback parameter", "Refund callback parameter"
	tests := []struct {
		name     string
		params   schema.Params
		table    string
		optional bool
		extra    []string
	}{
		{"paid, every optional field", callbackParams(&full), paid, true, nil},
		{"paid, no optional field", callbackParams(bare), paid, false, nil},
		{"refund, every optional field", schema.RefundWebhookParams(&full, &fullRefund), refunded, true, nil},
		{"refund, no optional field", schema.RefundWebhookParams(bare, refund), refunded, false, nil},
		{"test event", testParams("abc", at), paid, false, []string{"description", "test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := append(readmeParams(t, tt.table, tt.optional), tt.extra...)
			got := sentNames(t, tt.params)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("sent %v\nREADME %v", got, want)
			}
		})
	}
}
