package cryptohost

import (
	"errors"
	"math/big"

	"github.com/paygate/gateway/schema"
)

// rounding says how a decimal with more than two decimals becomes minor
// units: exactly (refused otherwise), or down (what arrived, never more).
type rounding int

const (
	exact rounding = iota
	down
)

var (
	errDecimal      = errors.New("not a decimal amount")
	errInexact      = errors.New("amount has more than two decimals")
	errAmountBounds = errors.New("amount out of range")
	errCurrency     = errors.New("not a currency code")
)

// parseDecimal reads a provider's amount literal exactly (never float64):
// JSON number grammar, bounded length and exponent.
func parseDecimal(lit string) (*big.Rat, error) {
	if len(lit) == 0 || len(lit) > 40 || !isNumberLiteral(lit) {
		return nil, errDecimal
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil, errDecimal
	}
	return r, nil
}

// isNumberLiteral is JSON's number grammar with an exponent of at most two
// digits, so that no literal makes big.Rat work hard.
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

// toMinor turns a decimal into minor units within schema's bounds (zero
// allowed: a sum of nothing).
func toMinor(r *big.Rat, mode rounding) (schema.Amount, error) {
	x := new(big.Rat).Mul(r, big.NewRat(100, 1))
	if x.Sign() < 0 {
		return 0, errAmountBounds
	}
	if !x.IsInt() && mode == exact {
		return 0, errInexact
	}
	q := new(big.Int).Quo(x.Num(), x.Denom())
	if !q.IsInt64() || q.Int64() > int64(schema.MaxAmount) {
		return 0, errAmountBounds
	}
	return schema.Amount(q.Int64()), nil
}

// parseMinor reads a literal into minor units.
func parseMinor(lit string, mode rounding) (schema.Amount, error) {
	r, err := parseDecimal(lit)
	if err != nil {
		return 0, err
	}
	return toMinor(r, mode)
}

// validCurrency is a three-letter upper-case code.
func validCurrency(c string) bool {
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
