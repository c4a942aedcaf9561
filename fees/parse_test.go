package fees

import (
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestParse: the spellings an operator may type, and every refusal a
// KindInvalidParameter error with nothing parsed.
func TestParse(t *testing.T) {
	ok := []struct {
		name string
		in   Input
		want schema.FeeSchedule
	}{
		{"bps only", Input{Bps: "150"}, schema.FeeSchedule{Bps: 150}},
		{"all parts", Input{Bps: "290", Fixed: "0.30", Min: "0.5", Max: "10"}, schema.FeeSchedule{Bps: 290, Fixed: 30, Min: 50, Max: 1000}},
		{"zero everywhere", Input{Bps: "0", Fixed: "0", Min: "0.00", Max: "0.0"}, schema.FeeSchedule{}},
		{"whole amount", Input{Bps: "10000"}, schema.FeeSchedule{Bps: 10000}},
		{"max 0 is none", Input{Bps: "1", Min: "5.00", Max: "0"}, schema.FeeSchedule{Bps: 1, Min: 500}},
		{"min equals max", Input{Bps: "1", Min: "1.00", Max: "1"}, schema.FeeSchedule{Bps: 1, Min: 100, Max: 100}},
		{"spaces around", Input{Bps: " 25 ", Fixed: " 1.20 "}, schema.FeeSchedule{Bps: 25, Fixed: 120}},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse(c.in)
			if err != nil || got != c.want {
				t.Fatalf("Parse(%+v) = %+v, %v; want %+v", c.in, got, err, c.want)
			}
		})
	}
	refused := []struct {
		name string
		in   Input
	}{
		{"bps missing", Input{}},
		{"bps negative", Input{Bps: "-1"}},
		{"bps fractional", Input{Bps: "1.5"}},
		{"bps over whole", Input{Bps: "10001"}},
		{"bps exponent", Input{Bps: "1e2"}},
		{"bps leading zero", Input{Bps: "0150"}},
		{"bps plus sign", Input{Bps: "+5"}},
		{"bps non-numeric", Input{Bps: "ten"}},
		{"bps huge", Input{Bps: "99999999999999999999"}},
		{"fixed negative", Input{Bps: "0", Fixed: "-0.30"}},
		{"fixed over-precise", Input{Bps: "0", Fixed: "0.001"}},
		{"fixed three decimals", Input{Bps: "0", Fixed: "1.255"}},
		{"fixed exponent", Input{Bps: "0", Fixed: "1e2"}},
		{"fixed non-numeric", Input{Bps: "0", Fixed: "abc"}},
		{"fixed comma", Input{Bps: "0", Fixed: "1,50"}},
		{"fixed hex", Input{Bps: "0", Fixed: "0x10"}},
		{"fixed over ceiling", Input{Bps: "0", Fixed: "1000000000.01"}},
		{"min negative", Input{Bps: "0", Min: "-1"}},
		{"min over-precise", Input{Bps: "0", Min: "0.001"}},
		{"max negative", Input{Bps: "0", Max: "-1"}},
		{"max exponent", Input{Bps: "0", Max: "1E3"}},
		{"max non-numeric", Input{Bps: "0", Max: "none"}},
		{"min above max", Input{Bps: "100", Min: "5.00", Max: "4.99"}},
		{"infinity", Input{Bps: "0", Max: "Inf"}},
		{"NaN", Input{Bps: "NaN"}},
	}
	for _, c := range refused {
		t.Run("refused/"+c.name, func(t *testing.T) {
			got, err := Parse(c.in)
			if err == nil {
				t.Fatalf("Parse(%+v) = %+v, want a refusal", c.in, got)
			}
			if platform.KindOf(err) != platform.KindInvalidParameter {
				t.Fatalf("Parse(%+v): %v is not an invalid parameter", c.in, err)
			}
		})
	}
}

// TestParseTarget: a payment method and a currency it takes; an appid
// of digits or none.
func TestParseTarget(t *testing.T) {
	got, err := ParseTarget(" 1001 ", "wallet_a", "usd")
	if err != nil || got != (Target{AppID: "1001", Method: schema.MethodWalletA, Currency: "USD"}) {
		t.Fatalf("ParseTarget = %+v, %v", got, err)
	}
	if got.Field() != "1001:wallet_a:USD" {
		t.Fatalf("field %q", got.Field())
	}
	if d, _ := ParseTarget("", "balance", "CNY"); d.Field() != "*:balance:CNY" {
		t.Fatalf("default field %q", d.Field())
	}
	for _, c := range []struct{ name, appid, method, cur string }{
		{"select is no payment", "", "select", "USD"},
		{"unknown method", "", "cash", "USD"},
		{"currency the method does not take", "", "wallet_a", "BDT"},
		{"unknown currency", "", "wallet_a", "XXX"},
		{"appid with letters", "10a1", "wallet_a", "USD"},
		{"appid with a colon", "1:2", "wallet_a", "USD"},
		{"appid too long", "123456789012345678901", "wallet_a", "USD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ParseTarget(c.appid, c.method, c.cur); platform.KindOf(err) != platform.KindInvalidParameter {
				t.Fatalf("ParseTarget(%q, %q, %q): %v", c.appid, c.method, c.cur, err)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		f    schema.FeeSchedule
		want string
	}{
		{schema.FeeSchedule{}, "none"},
		{schema.FeeSchedule{Bps: 150}, "1.50%"},
		{schema.FeeSchedule{Bps: 290, Fixed: 30, Min: 50, Max: 1000}, "2.90% + 0.30, min 0.50, max 10.00"},
		{schema.FeeSchedule{Fixed: 25}, "0.25"},
		{schema.FeeSchedule{Bps: 5}, "0.05%"},
	} {
		if got := Describe(c.f); got != c.want {
			t.Errorf("Describe(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}
