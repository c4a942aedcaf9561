package query

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/csvsafe"
	"github.com/paygate/gateway/schema"
)

// TestExportRecordMatchesView: the CSV row formats every field as
// action=order's object does (schema.View), which it no longer builds.
func TestExportRecordMatchesView(t *testing.T) {
	at := time.Date(2026, 11, 2, 3, 4, 5, 678e6, time.UTC)
	tests := []struct {
		name string
		o    schema.Order
	}{
		{"pending", schema.Order{ID: "o1", Status: schema.StatusPending, Amount: 12345, Currency: "USD", Method: schema.MethodWalletA, CreatedAt: at}},
		{"paid, charged, refunded", schema.Order{ID: "o2", Status: schema.StatusPaid, Amount: 100, Currency: "BDT", Method: schema.MethodBDCard,
			Description: "a, \"quoted\"\nline", ClientOrderID: "c-1", NotifyURL: "https://s.example/n", ReturnURL: "https://s.example/r",
			CreatedAt: at, CompletedAt: at.Add(time.Minute), PayableAmount: "1.00", PaidWithBalance: true, Sandbox: true,
			ChargeAmount: 7, ChargeCurrency: "USD", FXRate: "0.07", PayCurrency: "USDT", Refunded: 50}},
		{"charge without currency", schema.Order{ID: "o3", Status: schema.StatusFailed, ChargeAmount: 9, FXRate: "1", CreatedAt: at}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := schema.View(&tt.o, "")
			want := []string{v.PaymentID, strconv.Itoa(v.Status), v.StatusStr, v.Amount, v.Currency, v.PaymentMethod,
				v.Description, v.ClientOrderID, v.NotifyURL, v.ReturnURL, v.CreatedAt, v.CompletedTime, v.PayableAmount,
				strconv.FormatBool(v.PaidWithBalance), strconv.FormatBool(v.Sandbox), v.ChargeAmount, v.ChargeCurrency,
				v.FXRate, v.PayCurrency, v.RefundedAmount}
			if got := exportRecord(&tt.o, nil); !slices.Equal(got, want) {
				t.Fatalf("record\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// exportRecord is the CSV row of o as strings, formatted as action=order's
// object formats each field (schema.View): the reference csvRows.order is
// held to, through encoding/csv; the text the merchant or payer typed is
// defused (csvsafe.Cell).
func exportRecord(o *schema.Order, rec []string) []string {
	charge, chargeCur, fx, refunded := "", "", "", ""
	if o.ChargeCurrency != "" {
		charge, chargeCur, fx = o.ChargeAmount.String(), o.ChargeCurrency, o.FXRate
	}
	if o.Refunded != 0 {
		refunded = o.Refunded.String()
	}
	return append(rec[:0], o.ID, strconv.Itoa(int(o.Status)), o.Status.String(), o.Amount.String(), o.Currency, string(o.Method),
		csvsafe.Cell(o.Description), csvsafe.Cell(o.ClientOrderID), csvsafe.Cell(o.NotifyURL), csvsafe.Cell(o.ReturnURL), schema.WireTime(o.CreatedAt), schema.WireTime(o.CompletedAt),
		o.PayableAmount, strconv.FormatBool(o.PaidWithBalance), strconv.FormatBool(o.Sandbox), charge, chargeCur, fx,
		o.PayCurrency, refunded)
}
