package command

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestParseMethodLimits: the setting replaces the named methods' defaults
// only; an empty side is no bound; a bad entry is refused whole.
func TestParseMethodLimits(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[schema.Method]string // method: "min-max" as Amount strings; unlisted methods keep the defaults
		err      string
	}{
		{"empty is the defaults", "", map[schema.Method]string{schema.MethodWalletA: "1.00-50000.00",
			schema.MethodBDPSPB: "10.00-500000.00", schema.MethodCryptohost: "1.00-0.00", schema.MethodBalance: "0.00-0.00"}, ""},
		{"replace some", "wallet_a=5.00-10.00, cryptohost=5.00-,usdt_direct=10.00-100000.00", map[schema.Method]string{
			schema.MethodWalletA: "5.00-10.00", schema.MethodCryptohost: "5.00-0.00", schema.MethodUSDTDirect: "10.00-100000.00",
			schema.MethodWalletB: "1.00-50000.00"}, ""},
		{"remove a bound", "fiatpsp=-", map[schema.Method]string{schema.MethodFiatPSP: "0.00-0.00"}, ""},
		{"max only", "balance=-20", map[schema.Method]string{schema.MethodBalance: "0.00-20.00"}, ""},
		{"not a method", "nope=1-2", nil, "nope=1-2"},
		{"select has none", "select=1-2", nil, "select"},
		{"no range", "wallet_a=5", nil, "MIN-MAX"},
		{"three decimals", "wallet_a=1.005-", nil, "1.005"},
		{"min above max", "wallet_a=10-5", nil, "above max"},
		{"one bad entry of two", "wallet_a=1-2,wallet_b=x-", nil, "wallet_b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMethodLimits(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for m, want := range tt.want {
				if l := got[m]; fmt.Sprintf("%s-%s", l.Min, l.Max) != want {
					t.Fatalf("%s: %+v, want %s", m, l, want)
				}
			}
			if err := validateLimits(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLimitsForPrecedence: the merchant's override of a method wins, even
// an unbounded one; without one the default applies.
func TestLimitsForPrecedence(t *testing.T) {
	limits := MethodLimits(DefaultMethodLimits())
	acct := &merchant.Account{MethodLimits: map[schema.Method]schema.AmountLimits{
		schema.MethodWalletA: {Min: 5_00, Max: 60_00}, schema.MethodBDCard: {},
	}}
	tests := []struct {
		name string
		acct *merchant.Account
		m    schema.Method
		want schema.AmountLimits
	}{
		{"override", acct, schema.MethodWalletA, schema.AmountLimits{Min: 5_00, Max: 60_00}},
		{"unbounded override", acct, schema.MethodBDCard, schema.AmountLimits{}},
		{"default beside overrides", acct, schema.MethodWalletB, schema.AmountLimits{Min: 1_00, Max: 50_000_00}},
		{"no overrides", &merchant.Account{}, schema.MethodBDCard, schema.AmountLimits{Min: 10_00, Max: 500_000_00}},
		{"no default", &merchant.Account{}, schema.MethodBalance, schema.AmountLimits{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := limits.For(tt.acct, tt.m); got != tt.want {
				t.Fatalf("%+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestCreateEnforcesLimits: a create out of its method's limits is a 400
// naming the method and the bound, the merchant's override applying; a
// select order is not checked at create.
func TestCreateEnforcesLimits(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	// A merchant of its own: the harness's directory caches accounts.
	custom, err := h.accounts.Create(ctx, newAccount("limited shop", true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.accounts.SetMethodLimits(ctx, custom.AppID, schema.MethodWalletA, schema.AmountLimits{Min: 200_00}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                     string
		acct                     *merchant.Account
		method, currency, amount string
		status                   int
		msg                      string
	}{
		{"in range", h.acct, "wallet_a", "CNY", "1.00", 200, ""},
		{"below the minimum", h.acct, "wallet_a", "CNY", "0.99", 400, "below the minimum 1.00 CNY of paymentMethod wallet_a"},
		{"above the maximum", h.acct, "wallet_b", "CNY", "50000.01", 400, "above the maximum 50000.00 CNY of paymentMethod wallet_b"},
		{"bdcard's higher minimum", h.acct, "bdcard", "BDT", "9.99", 400, "minimum 10.00 BDT of paymentMethod bdcard"},
		{"no maximum", h.acct, "cryptohost", "USD", "900000.00", 200, ""},
		{"select is not checked", h.acct, "select", "USD", "0.01", 200, ""},
		{"override's minimum", custom, "wallet_a", "CNY", "100.00", 400, "below the minimum 200.00 CNY of paymentMethod wallet_a"},
		{"override lifts the default maximum", custom, "wallet_a", "CNY", "60000.00", 200, ""},
		{"default beside an override", custom, "wallet_b", "CNY", "60000.00", 400, "maximum 50000.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.baseParams()
			p["appid"], p["paymentMethod"], p["currency"], p["amount"] = tt.acct.AppID, tt.method, tt.currency, tt.amount
			r := h.post(signed(p, tt.acct.APIKey))
			if r.Status != tt.status || !strings.Contains(r.Body.Msg, tt.msg) {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if tt.status == 400 && r.Body.Error != "invalid_parameter" {
				t.Fatalf("kind %s", r.Body.Error)
			}
		})
	}
}
