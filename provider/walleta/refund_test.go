package walleta_test

import (
	"errors"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// TestRefundAgainstSimulator: the adapter's trade.refund against the
// simulator over HTTP: parts up to the trade's total, each request number
// once, a closed trade and an overdraw refused.
func TestRefundAgainstSimulator(t *testing.T) {
	h := newHarness(t)
	paid := h.payment("P-refund-paid", 100_00, "CNY")
	unpaid := h.payment("P-refund-closed", 100_00, "CNY")
	for _, p := range []provider.Payment{paid, unpaid} {
		if _, err := h.adapter.Initialise(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, h, paid.OrderID, true)
	h.got.Next(t)
	settle(t, h, unpaid.OrderID, false)
	h.got.Next(t)
	ask := func(order, id string, amount int64) error {
		_, err := h.adapter.Refund(t.Context(), provider.RefundRequest{OrderID: order, Ref: order, RefundID: id,
			Amount: provider.Money{Amount: schema.Amount(amount), Currency: "CNY"}, Reason: "damaged"})
		return err
	}
	tests := []struct {
		name  string
		order string
		id    string
		cents int64
		want  error
	}{
		{"first part", paid.OrderID, "rf_1", 60_00, nil},
		{"same request again", paid.OrderID, "rf_1", 60_00, nil},
		{"same request, other amount", paid.OrderID, "rf_1", 10_00, provider.ErrRefused},
		{"more than is left", paid.OrderID, "rf_2", 40_01, provider.ErrRefused},
		{"the rest", paid.OrderID, "rf_3", 40_00, nil},
		{"nothing left", paid.OrderID, "rf_4", 1, provider.ErrRefused},
		{"closed trade", unpaid.OrderID, "rf_5", 1_00, provider.ErrRefused},
		{"unknown trade", "P-nobody", "rf_6", 1_00, provider.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ask(tt.order, tt.id, tt.cents)
			if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
	total, count, err := h.sim.Refunded(t.Context(), paid.OrderID)
	if err != nil || total != "100.00" || count != 2 {
		t.Fatalf("trade refunded %s in %d refunds, %v", total, count, err)
	}
}
