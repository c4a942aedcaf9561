package client

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The gateway's amounts are decimal strings with two decimals; a merchant
// that keeps money in integer minor units (cents) converts with these,
// never through a float.

// FormatMinor is an amount of minor units as the gateway writes it:
// 10050 is "100.50", -2500 is "-25.00".
func FormatMinor(units int64) string {
	sign := ""
	u := uint64(units)
	if units < 0 {
		sign, u = "-", uint64(-units)
	}
	return fmt.Sprintf("%s%d.%02d", sign, u/100, u%100)
}

// ParseMinor reads an amount of the gateway ("100.50", "-25.00", or "100"
// and "100.5" as a create may send them) as minor units. More than two
// decimals, an exponent, a plus sign, spaces or an overflow are errors.
func ParseMinor(amount string) (int64, error) {
	digits, neg := strings.CutPrefix(amount, "-")
	whole, frac, dotted := strings.Cut(digits, ".")
	if whole == "" || len(frac) > 2 || (dotted && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("paygate: amount %q: want digits and at most two decimals", amount)
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, errors.Join(fmt.Errorf("paygate: amount %q out of range", amount), err)
	}
	if neg {
		n = -n
	}
	return n, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
