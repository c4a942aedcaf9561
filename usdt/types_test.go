package usdt

import (
	"math/big"
	"testing"
)

func TestUnits(t *testing.T) {
	cases := []struct {
		name, payable string
		decimals      int
		want          string
		bad           bool
	}{
		{"TRC20 vector", "12.347061", 6, "12347061", false},
		{"BEP20 vector", "12.347061", 18, "12347061000000000000", false},
		{"whole", "5", 6, "5000000", false},
		{"too many decimals", "1.0000001", 6, "", true},
		{"negative", "-1.00", 6, "", true},
		{"exponent", "1e3", 6, "", true},
		{"empty", "", 6, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Units(tc.payable, tc.decimals)
			if (err != nil) != tc.bad {
				t.Fatalf("Units(%q, %d) error %v, want bad=%v", tc.payable, tc.decimals, err, tc.bad)
			}
			if !tc.bad && got.String() != tc.want {
				t.Errorf("Units(%q, %d) = %s, want %s", tc.payable, tc.decimals, got, tc.want)
			}
		})
	}
}

// TestPayableLiteral: the inverse of Units for payable amounts.
func TestPayableLiteral(t *testing.T) {
	for _, tc := range []struct {
		lit string
		dec int
	}{{"500.004321", 6}, {"0.000001", 6}, {"12.347061", 18}, {"7.000000", 18}} {
		u, err := Units(tc.lit, tc.dec)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := PayableLiteral(u, tc.dec); !ok || got != tc.lit {
			t.Errorf("PayableLiteral(%v, %d) = %q %v, want %q", u, tc.dec, got, ok, tc.lit)
		}
	}
	if _, ok := PayableLiteral(big.NewInt(1), 18); ok {
		t.Error("a fraction of a micro-USDT read as a payable amount")
	}
}
