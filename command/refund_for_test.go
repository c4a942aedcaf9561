package command

import (
	"context"
	"errors"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestRefundFor: another door's refund of its proved merchant's order
// keeps every rule after the signature: the order must be the merchant's
// (the live merchant's own order is answered like a missing one), a
// clientRefundId must match our pattern and names one refund, the amount
// is bounded by what was paid.
func TestRefundFor(t *testing.T) {
	h := newRedisHarness(t)
	withRefunds(h)
	ctx := context.Background()
	paid := paidOrder(t, h, "wallet_a")
	kind := func(err error) platform.Kind {
		var pe *platform.Error
		if errors.As(err, &pe) {
			return pe.Kind
		}
		return ""
	}
	tests := []struct {
		name string
		ask  RefundAsk
		who  string // "live": the other merchant asks
		want platform.Kind
	}{
		{"another merchant's order", RefundAsk{OrderID: paid, Amount: 1_00}, "live", platform.KindNotFound},
		{"bad clientRefundId", RefundAsk{OrderID: paid, Amount: 1_00, ClientRefundID: "a b"}, "", platform.KindInvalidParameter},
		{"zero amount", RefundAsk{OrderID: paid}, "", platform.KindInvalidParameter},
		{"more than paid", RefundAsk{OrderID: paid, Amount: 100_01}, "", platform.KindRefundExceeded},
		{"no such order", RefundAsk{OrderID: "P-nothing", Amount: 1_00}, "", platform.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acct := h.acct
			if tt.who == "live" {
				acct = h.live
			}
			_, _, _, err := h.uc.Refund.RefundFor(ctx, acct, tt.ask)
			if kind(err) != tt.want {
				t.Fatalf("err %v, want %s", err, tt.want)
			}
			if o := h.order(t, paid); o.Refunded != 0 || o.RefundReserved != 0 {
				t.Fatalf("a refused refund moved %d (reserved %d)", o.Refunded, o.RefundReserved)
			}
		})
	}
	t.Run("refund and its replay", func(t *testing.T) {
		ask := RefundAsk{OrderID: paid, Amount: 30_50, ClientRefundID: "r-1"}
		r, o, replay, err := h.uc.Refund.RefundFor(ctx, h.acct, ask)
		if err != nil || replay || r.Status != schema.RefundSucceeded || o.Refunded != 30_50 {
			t.Fatalf("refund %+v, order refunded %v, replay %v, err %v", r, o, replay, err)
		}
		again, o, replay, err := h.uc.Refund.RefundFor(ctx, h.acct, ask)
		if err != nil || !replay || again.ID != r.ID || o.Refunded != 30_50 {
			t.Fatalf("replay %+v, refunded %d, replay %v, err %v", again, o.Refunded, replay, err)
		}
	})
}
