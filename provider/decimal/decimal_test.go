package decimal

import (
	"errors"
	"strings"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// ParseMinor takes JSON's number grammar and rounds as told.
func TestParseMinor(t *testing.T) {
	cases := []struct {
		lit  string
		mode Mode
		want schema.Amount
		err  error
	}{
		{"100", Exact, 100_00, nil},
		{"100.5", Exact, 100_50, nil},
		{"0.01", Exact, 1, nil},
		{"0", Exact, 0, nil},
		{"-0", Exact, 0, nil},
		{"1e2", Exact, 100_00, nil},
		{"1.5E-1", Exact, 15, nil},
		{"12150.0000", Exact, 12150_00, nil},
		{"0.015", Exact, 0, ErrInexact},
		{"0.019", Down, 1, nil},
		{"0.011", Up, 2, nil},
		{"0.01", Up, 1, nil},
		{"-1", Exact, 0, ErrRange},
		{"100000000000", Exact, 0, ErrRange},
		{"", Exact, 0, ErrSyntax},
		{"01", Exact, 0, ErrSyntax},
		{"1.", Exact, 0, ErrSyntax},
		{".5", Exact, 0, ErrSyntax},
		{"+1", Exact, 0, ErrSyntax},
		{"1e100", Exact, 0, ErrSyntax},
		{"1e", Exact, 0, ErrSyntax},
		{" 1", Exact, 0, ErrSyntax},
		{"0x10", Exact, 0, ErrSyntax},
		{strings.Repeat("1", 41), Exact, 0, ErrSyntax},
	}
	for _, c := range cases {
		got, err := ParseMinor(c.lit, c.mode)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ParseMinor(%q, %d) = %d, %v; want %d, %v", c.lit, c.mode, got, err, c.want, c.err)
		}
	}
}

// Rounding up past the bound is out of range, not the bound.
func TestMinorUpAtTheBound(t *testing.T) {
	lit := schema.MaxAmount.String() + "001"
	if _, err := ParseMinor(lit, Up); !errors.Is(err, ErrRange) {
		t.Fatalf("ParseMinor(%s, Up) = %v, want ErrRange", lit, err)
	}
	if a, err := ParseMinor(lit, Down); err != nil || a != schema.MaxAmount {
		t.Fatalf("ParseMinor(%s, Down) = %d, %v", lit, a, err)
	}
}

// ParsePadded is schema.ParseAmount's grammar with zeros allowed beyond
// the cents, and nothing else.
func TestParsePadded(t *testing.T) {
	ok := map[string]schema.Amount{"12150": 12150_00, "12150.5": 12150_50, "12150.00": 12150_00, "12150.0000": 12150_00, "0.01": 1}
	for lit, want := range ok {
		if got, err := ParsePadded(lit); err != nil || got != want {
			t.Errorf("ParsePadded(%q) = %d, %v; want %d", lit, got, err, want)
		}
	}
	for _, lit := range []string{"", "0", "0.00", "12150.001", "1e2", "-1", "+1", "01", "1.", ".5", "1,00", "100000000000"} {
		if got, err := ParsePadded(lit); err == nil {
			t.Errorf("ParsePadded(%q) = %d, want an error", lit, got)
		}
	}
}

func TestPaddedMoney(t *testing.T) {
	m, err := PaddedMoney("12150.0000", "BDT")
	if err != nil || m != (provider.Money{Amount: 12150_00, Currency: "BDT"}) {
		t.Fatalf("PaddedMoney = %+v, %v", m, err)
	}
	for _, cur := range []string{"", "bdt", "BD", "BDTX", "B1T"} {
		if _, err := PaddedMoney("1.00", cur); err == nil {
			t.Errorf("currency %q accepted", cur)
		}
	}
	if _, err := PaddedMoney("1.00", strings.Repeat("é", 20)); err == nil || strings.Count(err.Error(), "é") != 8 {
		t.Errorf("long code quoted whole: %v", err)
	}
}

func TestCurrency(t *testing.T) {
	for c, want := range map[string]bool{"USD": true, "BDT": true, "usd": false, "US": false, "USDT": false, "U1D": false, "": false, "ÜSD": false} {
		if Currency(c) != want {
			t.Errorf("Currency(%q) = %v", c, !want)
		}
	}
}
