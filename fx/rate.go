package fx

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Micros is the scale of a rate: units of the quote currency per one unit
// of the base currency, in millionths.
const Micros = 1_000_000

// Rate is a positive rate with at most six decimals.
type Rate int64

// ParseRate reads "121.50": digits, optionally a dot and up to six decimals.
func ParseRate(lit string) (Rate, error) {
	whole, frac, dot := strings.Cut(strings.TrimSpace(lit), ".")
	if whole == "" || len(whole) > 9 || (dot && (frac == "" || len(frac) > 6)) || !digits(whole) || !digits(frac) {
		return 0, fmt.Errorf("rate %q: want a positive decimal with at most 6 decimals", lit)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
	r := Rate(w*Micros + f)
	if r <= 0 {
		return 0, errors.New("rate must be greater than 0")
	}
	return r, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String prints the rate with its significant decimals ("121.5").
func (r Rate) String() string {
	s := strconv.FormatInt(int64(r)/Micros, 10)
	if f := int64(r) % Micros; f != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", f), "0")
	}
	return s
}

// Convert is amount (minor units of the base currency) at rate, in minor
// units of the quote currency, rounded half up to the cent.
func Convert(amount schema.Amount, r Rate) schema.Amount {
	n := new(big.Int).Mul(big.NewInt(int64(amount)), big.NewInt(int64(r)))
	q, rem := new(big.Int).QuoRem(n, big.NewInt(Micros), new(big.Int))
	if rem.Int64()*2 >= Micros {
		q.Add(q, big.NewInt(1))
	}
	return schema.Amount(q.Int64())
}

// Pair names a rate: how many units of Quote one unit of Base costs.
type Pair struct{ Base, Quote string }

func (p Pair) String() string { return p.Base + ":" + p.Quote }

// ParsePair reads "USD:BDT".
func ParsePair(s string) (Pair, bool) {
	b, q, ok := strings.Cut(s, ":")
	return Pair{b, q}, ok && validCode(b) && validCode(q) && b != q
}

func validCode(c string) bool {
	if len(c) < 3 || len(c) > 5 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}
