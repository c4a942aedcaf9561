package schema

import (
	"errors"
	"strconv"
	"strings"
)

// Amount is money in minor units (hundredths). Every currency we carry has two
// decimals, and an integer count keeps arithmetic exact, unlike float64.
type Amount int64

// MaxAmount is DESIGN.md's ceiling for one order: 1,000,000,000.00.
const MaxAmount Amount = 1_000_000_000_00

var (
	errAmountSyntax = errors.New("must be a positive decimal number with at most 2 decimals")
	errAmountRange  = errors.New("must be greater than 0 and at most 1000000000.00")
)

// ParseAmount reads an amount literal exactly as the merchant wrote it:
// digits, optionally a dot and one or two decimals. Signs, exponents, spaces
// and leading zeros ("007") are refused so that one amount has one spelling.
func ParseAmount(lit string) (Amount, error) {
	whole, frac, hasDot := strings.Cut(lit, ".")
	if whole == "" || len(whole) > 10 || !allDigits(whole) || (len(whole) > 1 && whole[0] == '0') {
		return 0, errAmountSyntax
	}
	if hasDot && (len(frac) == 0 || len(frac) > 2 || !allDigits(frac)) {
		return 0, errAmountSyntax
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, errAmountSyntax
	}
	cents := int64(0)
	if frac != "" {
		f, _ := strconv.ParseInt(frac, 10, 64)
		if len(frac) == 1 {
			f *= 10
		}
		cents = f
	}
	a := Amount(w*100 + cents)
	if a <= 0 || a > MaxAmount {
		return 0, errAmountRange
	}
	return a, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String renders the amount with exactly two decimals, as webhooks and
// responses carry it ("100.00").
func (a Amount) String() string {
	neg := a < 0
	if neg {
		a = -a
	}
	s := strconv.FormatInt(int64(a/100), 10) + "." + twoDigits(int64(a%100))
	if neg {
		return "-" + s
	}
	return s
}

func twoDigits(v int64) string {
	if v < 10 {
		return "0" + strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10)
}
