package schema

import (
	"reflect"
	"testing"
	"time"
)

// TestAppendFieldArgsMatchesFields: the create script's arguments are the
// hash fields Fields gives, name for name and value for value, whatever
// the order holds.
func TestAppendFieldArgsMatchesFields(t *testing.T) {
	at := time.UnixMilli(1_790_000_000_123).UTC()
	tests := []struct {
		name string
		o    Order
	}{
		{"a new select order", Order{ID: "01J", AppID: "1001", Sandbox: true, ClientOrderID: "c-1", Amount: 10000, Currency: "USD",
			Method: "select", Status: StatusReady, Description: "bench order", ClientIP: "127.0.0.1", CreatedAt: at, UpdatedAt: at, Version: 1}},
		{"every kind of field", Order{ID: "01K", AppID: "1002", ClientOrderID: "c-2", Amount: 1, Currency: "CNY", Method: "wallet_a",
			Status: StatusPaid, Description: "d", CustomerName: "n", CustomerEmail: "e", CustomerPhone: "p", NotifyURL: "https://n/?a&b",
			ReturnURL: "https://r", Lang: "zh", AllowedMethods: "a,b", FiatpspSystemID: "7", ProviderURL: "https://p", NextAction: "pay",
			QRPayload: "qr", PayableAmount: "1.01", PayCurrency: "USDT", Network: "tron", TxHash: "0xab", Review: "r", ReviewReason: "why",
			ReviewProgress: USDTProgress{Step: "confirming", NextCheck: at, Until: at, Confirmations: 3, Required: 19},
			ChargeAmount:   5, ChargeCurrency: "BDT", FXRate: "1.5", ProviderRef: "ref", PaidWithBalance: true, ClientIP: "::1", Door: DoorEpay, DoorType: "t1", DoorParam: "a&b=c",
			Refunded: 2, RefundReserved: 3, CreatedAt: at, UpdatedAt: at, CompletedAt: at, Version: 9}},
		{"zero order", Order{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.o.Fields()
			args := tc.o.AppendFieldArgs([]any{"kept"})
			got := make([]string, 0, len(args))
			for _, a := range args[1:] {
				s, ok := a.(string)
				if !ok {
					t.Fatalf("argument %v is a %T, not a string", a, a)
				}
				got = append(got, s)
			}
			if args[0] != "kept" || !reflect.DeepEqual(got, want) {
				t.Errorf("AppendFieldArgs = %q, Fields = %q", got, want)
			}
		})
	}
}
