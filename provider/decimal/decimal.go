// Package decimal reads the amounts and currency codes providers write, for
// every provider family, so that each family accepts exactly what it
// documents and no amount ever passes through float64.
//
// Two grammars are kept because the protocols differ: ParseMinor takes any
// JSON number (the crypto providers write "100", "0.0005", "1e2") and rounds
// as the caller says; ParsePadded takes only the plain "12150.00" form the
// Bangladeshi providers write, padded with zeros beyond the cents. Families
// whose providers write two decimals at most use schema.ParseAmount.
package decimal

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Mode says how a decimal with more than two decimals becomes minor units.
// The caller picks it by what the amount means to it: a price must be exact,
// money that arrived is counted down (never more than arrived), a minimum is
// rounded up (never less than required).
type Mode int

const (
	Exact Mode = iota // more than two decimals is refused (ErrInexact)
	Down              // truncated towards zero
	Up                // rounded up to the next cent
)

// Errors a caller may tell apart; each family wraps them in its own words.
var (
	ErrSyntax   = errors.New("not a decimal amount")
	ErrInexact  = errors.New("amount has more than two decimals")
	ErrRange    = errors.New("amount out of range")
	ErrCurrency = errors.New("not a currency code")
)

// maxLiteral bounds a literal, so that no answer makes big.Rat work hard.
const maxLiteral = 40

// Parse reads a provider's amount literal exactly: JSON number grammar,
// at most 40 bytes and an exponent of at most two digits.
func Parse(lit string) (*big.Rat, error) {
	if len(lit) == 0 || len(lit) > maxLiteral || !isNumberLiteral(lit) {
		return nil, ErrSyntax
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil, ErrSyntax
	}
	return r, nil
}

// isNumberLiteral is JSON's number grammar with an exponent of at most two
// digits.
func isNumberLiteral(s string) bool {
	i := 0
	if s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || (s[start] == '0' && i-start > 1) {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j || i-j > 2 {
			return false
		}
	}
	return i == len(s)
}

// Minor turns a decimal into minor units within schema's bounds. Zero is
// allowed (a sum of nothing); a negative amount is ErrRange.
func Minor(r *big.Rat, mode Mode) (schema.Amount, error) {
	x := new(big.Rat).Mul(r, big.NewRat(100, 1))
	if x.Sign() < 0 {
		return 0, ErrRange
	}
	if !x.IsInt() && mode == Exact {
		return 0, ErrInexact
	}
	q := new(big.Int).Quo(x.Num(), x.Denom())
	if !x.IsInt() && mode == Up {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() || q.Int64() > int64(schema.MaxAmount) {
		return 0, ErrRange
	}
	return schema.Amount(q.Int64()), nil
}

// ParseMinor reads a JSON number literal into minor units (Parse, then
// Minor).
func ParseMinor(lit string, mode Mode) (schema.Amount, error) {
	r, err := Parse(lit)
	if err != nil {
		return 0, err
	}
	return Minor(r, mode)
}

// ParsePadded reads schema.ParseAmount's plain grammar (positive, no sign
// or exponent) where the provider may pad the cents with zeros
// ("12150.0000"); a non-zero digit beyond the second decimal is refused.
func ParsePadded(lit string) (schema.Amount, error) {
	whole, frac, dot := strings.Cut(lit, ".")
	if dot && len(frac) > 2 {
		if strings.Trim(frac[2:], "0") != "" {
			return 0, fmt.Errorf("amount %q has more than two decimals", lit)
		}
		frac = frac[:2]
	}
	s := whole
	if dot {
		s += "." + frac
	}
	a, err := schema.ParseAmount(s)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", lit, err)
	}
	return a, nil
}

// PaddedMoney is ParsePadded's amount in an ISO currency code, as the
// Bangladeshi providers write a payment; the error quotes at most 8
// characters of a bad code.
func PaddedMoney(amount, currency string) (provider.Money, error) {
	a, err := ParsePadded(amount)
	if err != nil {
		return provider.Money{}, err
	}
	if !Currency(currency) {
		if r := []rune(currency); len(r) > 8 {
			currency = string(r[:8])
		}
		return provider.Money{}, fmt.Errorf("currency %q is not an ISO code", currency)
	}
	return provider.Money{Amount: a, Currency: currency}, nil
}

// Currency reports a three-letter upper-case (ISO 4217 shaped) code.
func Currency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}
