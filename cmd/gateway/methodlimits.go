package main

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// limitView is one method's effective amount limits as the CLI prints
// them: empty is no bound; from says whether the merchant's override or the
// gateway's default (GATEWAY_METHOD_LIMITS over the built-in set) applies.
type limitView struct {
	Min  string `json:"min,omitempty"`
	Max  string `json:"max,omitempty"`
	From string `json:"from"`
}

// effectiveLimits are the limits each of methods takes for account a.
func effectiveLimits(a *merchant.Account, methods []schema.Method) (map[schema.Method]limitView, error) {
	defaults, err := command.ParseMethodLimits(envOr("GATEWAY_METHOD_LIMITS", ""))
	if err != nil {
		return nil, err
	}
	out := map[schema.Method]limitView{}
	for _, m := range methods {
		if !m.Selectable() {
			continue // select has no limits of its own: the chosen method's apply
		}
		l, from := defaults[m], "default"
		if o, ok := a.MethodLimits[m]; ok {
			l, from = o, "merchant"
		}
		v := limitView{From: from}
		if l.Min > 0 {
			v.Min = l.Min.String()
		}
		if l.Max > 0 {
			v.Max = l.Max.String()
		}
		out[m] = v
	}
	return out, nil
}

// showAccount prints an account with the methods it can use, their
// effective limits and the account's balances (merchant show, merchant
// method-limits).
func showAccount(ctx context.Context, out output, st *merchant.Store, a *merchant.Account) error {
	methods, err := merchantMethods(a.Sandbox, envOr("GATEWAY_PROVIDERS_FILE", ""))
	if err != nil {
		return err
	}
	limits, err := effectiveLimits(a, methods)
	if err != nil {
		return err
	}
	bals, err := st.Balances(ctx, a.AppID)
	if err != nil {
		return err
	}
	balances := make(map[string]string, len(bals))
	for cur, amt := range bals {
		balances[cur] = amt.String()
	}
	v := out.accountView(a, true)
	v["methods"], v["methodLimits"], v["balances"] = methods, limits, balances
	return out.value(v)
}

// setMethodLimits is merchant method-limits APPID METHOD: --min and --max
// (either may be left out for no bound) override the default, --clear
// removes the override.
func setMethodLimits(ctx context.Context, st *merchant.Store, pos []string, min, max string, clear bool) (*merchant.Account, error) {
	appid, m := pos[0], schema.Method(pos[1])
	if !m.Selectable() {
		return nil, fmt.Errorf("merchant method-limits: %q is not a payment method", pos[1])
	}
	if clear {
		if min != "" || max != "" {
			return nil, fmt.Errorf("merchant method-limits: --clear takes no --min or --max")
		}
		return st.ClearMethodLimits(ctx, appid, m)
	}
	var l schema.AmountLimits
	for _, side := range []struct {
		name, lit string
		to        *schema.Amount
	}{{"min", min, &l.Min}, {"max", max, &l.Max}} {
		if side.lit == "" {
			continue
		}
		a, err := schema.ParseAmount(side.lit)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", side.name, err)
		}
		*side.to = a
	}
	return st.SetMethodLimits(ctx, appid, m, l)
}
