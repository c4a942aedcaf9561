package walletb_test

import (
	"errors"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// TestRefundAgainstSimulator: the adapter's refund call against the
// simulator over HTTP: parts up to the transaction's total, each refund
// number once, a failed transaction and an overdraw refused.
func TestRefundAgainstSimulator(t *testing.T) {
	h := newHarness(t)
	paid := h.payment("P-refund-paid", 100_00, "CNY")
	failed := h.payment("P-refund-failed", 100_00, "CNY")
	for _, p := range []provider.Payment{paid, failed} {
		if _, err := h.adapter.Initialise(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, h, paid.OrderID, true)
	h.got.Next(t)
	settle(t, h, failed.OrderID, false)
	h.got.Next(t)
	charged := provider.Money{Amount: 100_00, Currency: "CNY"}
	tests := []struct {
		name  string
		order string
		id    string
		cents schema.Amount
		want  error
	}{
		{"first part", paid.OrderID, "rf_1", 60_00, nil},
		{"same refund again", paid.OrderID, "rf_1", 60_00, nil},
		{"same refund, other amount", paid.OrderID, "rf_1", 10_00, provider.ErrRefused},
		{"more than is left", paid.OrderID, "rf_2", 40_01, provider.ErrRefused},
		{"the rest", paid.OrderID, "rf_3", 40_00, nil},
		{"nothing left", paid.OrderID, "rf_4", 1, provider.ErrRefused},
		{"failed transaction", failed.OrderID, "rf_5", 1_00, provider.ErrRefused},
		{"unknown order", "P-nobody", "rf_6", 1_00, provider.ErrNotFound},
	}
	refs := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := h.adapter.Refund(t.Context(), provider.RefundRequest{OrderID: tt.order, Ref: tt.order, RefundID: tt.id,
				Amount: provider.Money{Amount: tt.cents, Currency: "CNY"}, Charged: charged, Reason: "damaged"})
			if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			if err != nil {
				return
			}
			if prior, ok := refs[tt.id]; (ok && prior != res.Ref) || res.Ref == "" {
				t.Fatalf("refund %s answered %q, before %q", tt.id, res.Ref, prior)
			}
			refs[tt.id] = res.Ref
		})
	}
	total, count, err := h.sim.Refunded(t.Context(), paid.OrderID)
	if err != nil || total != 100_00 || count != 2 {
		t.Fatalf("transaction refunded %d in %d refunds, %v", total, count, err)
	}
}
