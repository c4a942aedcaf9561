package fees

import (
	"strconv"
	"strings"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Input is a schedule as an operator types it, in the console's form or
// the CLI's flags: basis points, then the fixed part, the minimum and the
// maximum as decimal amounts. An empty amount is 0; a maximum of 0 is none.
type Input struct{ Bps, Fixed, Min, Max string }

// Parse reads in, refusing anything that is not exactly one spelling of a
// valid schedule: bps a whole number from 0 to 10000, amounts with at most
// 2 decimals, no signs, exponents, spaces or leading zeros, and a minimum
// not above the maximum. A refusal is a KindInvalidParameter error (400)
// naming the field, so a typo never becomes a fee.
func Parse(in Input) (schema.FeeSchedule, error) {
	bps, err := parseBps(in.Bps)
	if err != nil {
		return schema.FeeSchedule{}, err
	}
	f := schema.FeeSchedule{Bps: bps}
	for _, a := range []struct {
		name, lit string
		to        *schema.Amount
	}{{"fixed", in.Fixed, &f.Fixed}, {"min", in.Min, &f.Min}, {"max", in.Max, &f.Max}} {
		if *a.to, err = parseAmount(a.name, a.lit); err != nil {
			return schema.FeeSchedule{}, err
		}
	}
	if err := f.Validate(); err != nil {
		return schema.FeeSchedule{}, platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	return f, nil
}

// parseBps reads basis points: digits only (a fraction of a basis point
// is no unit the ledger keeps), one spelling per number.
func parseBps(lit string) (int64, error) {
	lit = strings.TrimSpace(lit)
	if lit == "" || len(lit) > 5 || !digits(lit) || (len(lit) > 1 && lit[0] == '0') {
		return 0, platform.Errorf(platform.KindInvalidParameter, "bps must be a whole number of basis points from 0 to %d", schema.MaxFeeBps)
	}
	n, _ := strconv.ParseInt(lit, 10, 64)
	if n > schema.MaxFeeBps {
		return 0, platform.Errorf(platform.KindInvalidParameter, "bps must be a whole number of basis points from 0 to %d", schema.MaxFeeBps)
	}
	return n, nil
}

// parseAmount reads a fee amount: schema.ParseAmount's spelling, or zero
// ("", "0", "0.0", "0.00"), which an order amount may not be but a fee's
// parts may.
func parseAmount(name, lit string) (schema.Amount, error) {
	switch strings.TrimSpace(lit) {
	case "", "0", "0.0", "0.00":
		return 0, nil
	}
	a, err := schema.ParseAmount(strings.TrimSpace(lit))
	if err != nil {
		return 0, platform.Errorf(platform.KindInvalidParameter, "%s must be an amount of at least 0 with at most 2 decimals, at most %s", name, schema.MaxAmount)
	}
	return a, nil
}

// Target is whose schedule for which method and currency: AppID ""
// is the operator default.
type Target struct {
	AppID    string
	Method   schema.Method
	Currency string
}

// ParseTarget reads a target as typed ("wallet_a", "usd", ""), refusing a
// method a payer cannot pay with (select is no payment), a currency the
// method does not take and an appid that cannot be one.
func ParseTarget(appid, method, currency string) (Target, error) {
	t := Target{AppID: strings.TrimSpace(appid), Method: schema.Method(strings.TrimSpace(method)),
		Currency: strings.ToUpper(strings.TrimSpace(currency))}
	switch {
	case !t.Method.Selectable():
		return Target{}, platform.Errorf(platform.KindInvalidParameter, "method %q is not a payment method", method)
	case !t.Method.Supports(t.Currency):
		return Target{}, platform.Errorf(platform.KindInvalidParameter, "method %s takes %s, not %q", t.Method,
			strings.Join(t.Method.Currencies(), ", "), currency)
	case t.AppID != "" && (len(t.AppID) > 20 || !digits(t.AppID)):
		return Target{}, platform.Errorf(platform.KindInvalidParameter, "merchant %q is not an appid", appid)
	}
	return t, nil
}

// Field is t's field in schema.FeesKey.
func (t Target) Field() string { return schema.FeeField(t.AppID, t.Method, t.Currency) }

// String names t in an audit entry's target and a message: "fees:*:wallet_a:USD".
func (t Target) String() string { return "fees:" + t.Field() }

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Describe is s as a person reads it: "1.50% + 0.30, min 0.50, max 10.00"
// (parts that are zero left out), "none" for the zero schedule.
func Describe(s schema.FeeSchedule) string {
	if s.Zero() {
		return "none"
	}
	var parts []string
	if s.Bps != 0 || s.Fixed == 0 {
		parts = append(parts, strconv.FormatInt(s.Bps/100, 10)+"."+twoDigits(s.Bps%100)+"%")
	}
	if s.Fixed != 0 {
		parts = append(parts, s.Fixed.String())
	}
	out := strings.Join(parts, " + ")
	if s.Min != 0 {
		out += ", min " + s.Min.String()
	}
	if s.Max != 0 {
		out += ", max " + s.Max.String()
	}
	return out
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
