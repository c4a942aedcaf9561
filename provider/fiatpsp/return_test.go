package fiatpsp_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/paygate/gateway/provider"
)

// TestReturnFail: the payer's return from failure_url fails the order only
// when the provider's status says failed (or pays it when paid); a return
// for an order still open, unknown or malformed is refused, so that a
// forged return fails nothing. Every return is answered with a redirect.
func TestReturnFail(t *testing.T) {
	h := startHarness(t, nil)
	open := h.payment("P-open", "36")
	h.initialise(t, open)
	failed := h.payment("P-failed", "36")
	in := h.initialise(t, failed)
	if res := click(t, in.ProviderURL, "fail"); res.StatusCode >= 400 {
		t.Fatalf("fail on the page: %d", res.StatusCode)
	}
	tests := []struct {
		name, id string
		want     provider.Outcome
		err      error
	}{
		{"failed at the provider", "P-failed", provider.OutcomeFailed, nil},
		{"still open: forged", "P-open", 0, provider.ErrUnverified},
		{"unknown order", "P-nobody", 0, provider.ErrUnverified},
		{"malformed id", "P/../x", 0, provider.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &provider.Request{Path: fiatpsp.ReturnFail, Query: url.Values{"paymentId": {tt.id}}}
			n, err := h.adapter.Verify(context.Background(), r)
			if tt.err != nil && !errors.Is(err, tt.err) || tt.err == nil && (err != nil || n.Outcome != tt.want || n.OrderID != tt.id) {
				t.Fatalf("Verify = %+v, %v; want %v, %v", n, err, tt.want, tt.err)
			}
			if rep := h.adapter.Reply(n, err); rep.Status != 303 && tt.err != provider.ErrMalformed {
				t.Fatalf("reply %+v, want a redirect onwards", rep)
			}
		})
	}
}
