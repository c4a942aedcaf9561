package command

import (
	"fmt"
	"maps"
	"strings"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// defaultMethodLimits are the gateway's built-in amount limits, in the
// order's currency: what the providers of each family take for one payment
// in practice. balance is unbounded: the merchant's own money.
const defaultMethodLimits = "wallet_a=1.00-50000.00,wallet_b=1.00-50000.00,cryptohost=1.00-," +
	"bdcard=10.00-500000.00,bdpsp_a=10.00-500000.00,bdpsp_b=10.00-500000.00,fiatpsp=1.00-100000.00," +
	"cryptopsp=1.00-,usdt_direct=10.00-1000000.00"

// DefaultMethodLimits are the built-in limits (GATEWAY_METHOD_LIMITS empty).
func DefaultMethodLimits() map[schema.Method]schema.AmountLimits {
	out, err := parseLimitList(defaultMethodLimits)
	if err != nil {
		panic("command: built-in method limits: " + err.Error()) // a typo above; the tests catch it
	}
	return out
}

// ParseMethodLimits reads GATEWAY_METHOD_LIMITS,
// "wallet_a=1.00-50000.00,cryptohost=5.00-,usdt_direct=10.00-100000.00":
// the built-in defaults with each named method's limits replaced. An empty
// side is no bound, so "balance=-" or "cryptopsp=-" removes a method's
// limits altogether. Operators name only what differs from the defaults.
func ParseMethodLimits(s string) (map[schema.Method]schema.AmountLimits, error) {
	given, err := parseLimitList(s)
	if err != nil {
		return nil, err
	}
	out := DefaultMethodLimits()
	maps.Copy(out, given)
	return out, nil
}

func parseLimitList(s string) (map[schema.Method]schema.AmountLimits, error) {
	out := map[schema.Method]schema.AmountLimits{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, rng, ok := strings.Cut(part, "=")
		m := schema.Method(strings.TrimSpace(name))
		if !ok || !m.Selectable() {
			return nil, fmt.Errorf("method-limits %q: want METHOD=MIN-MAX with a payment method, e.g. wallet_a=1.00-50000.00", part)
		}
		l, err := parseLimits(strings.TrimSpace(rng))
		if err != nil {
			return nil, fmt.Errorf("method-limits %q: %w", part, err)
		}
		out[m] = l
	}
	return out, nil
}

// parseLimits reads "MIN-MAX", either side empty for no bound.
func parseLimits(rng string) (schema.AmountLimits, error) {
	lo, hi, ok := strings.Cut(rng, "-")
	if !ok {
		return schema.AmountLimits{}, fmt.Errorf("want MIN-MAX, e.g. 1.00-500.00 or 5.00-")
	}
	var l schema.AmountLimits
	for _, side := range []struct {
		lit string
		to  *schema.Amount
	}{{strings.TrimSpace(lo), &l.Min}, {strings.TrimSpace(hi), &l.Max}} {
		if side.lit == "" {
			continue
		}
		a, err := schema.ParseAmount(side.lit)
		if err != nil {
			return schema.AmountLimits{}, fmt.Errorf("bound %q %w", side.lit, err)
		}
		*side.to = a
	}
	if l.Max > 0 && l.Min > l.Max {
		return schema.AmountLimits{}, fmt.Errorf("min %s is above max %s", l.Min, l.Max)
	}
	return l, nil
}

// validateLimits checks configured limits (a map built in code skips the parser).
func validateLimits(all map[schema.Method]schema.AmountLimits) error {
	for m, l := range all {
		if !m.Selectable() || l.Min < 0 || l.Max < 0 || (l.Max > 0 && l.Min > l.Max) {
			return fmt.Errorf("command: method limits of %q are not valid: %+v", string(m), l)
		}
	}
	return nil
}

// MethodLimits are the gateway's default amount limits by method
// (Config.MethodLimits): create and the select page apply them, the CLI
// shows them, all through For.
type MethodLimits map[schema.Method]schema.AmountLimits

// For is the amount range method m takes for the merchant: its own
// override (own), else the gateway's default; zero sides are unbounded.
func (d MethodLimits) For(acct *merchant.Account, m schema.Method) (l schema.AmountLimits, own bool) {
	if l, ok := acct.MethodLimits[m]; ok {
		return l, true
	}
	return d[m], false
}

// limitReason says why amt is out of l: "below_min", "above_max", or "".
func limitReason(l schema.AmountLimits, amt schema.Amount) string {
	switch {
	case l.Min > 0 && amt < l.Min:
		return "below_min"
	case l.Max > 0 && amt > l.Max:
		return "above_max"
	}
	return ""
}

// checkLimits refuses an amount out of method m's limits, naming the bound.
// A select order is not checked: the payer's choice is, on the select page.
func (d MethodLimits) check(acct *merchant.Account, m schema.Method, amt schema.Amount, cur string) error {
	if m == schema.MethodSelect {
		return nil
	}
	l, _ := d.For(acct, m)
	switch limitReason(l, amt) {
	case "below_min":
		return platform.Errorf(platform.KindInvalidParameter, "amount %s %s is below the minimum %s %s of paymentMethod %s", amt, cur, l.Min, cur, m)
	case "above_max":
		return platform.Errorf(platform.KindInvalidParameter, "amount %s %s is above the maximum %s %s of paymentMethod %s", amt, cur, l.Max, cur, m)
	}
	return nil
}
