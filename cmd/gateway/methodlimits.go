package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
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
func effectiveLimits(a *merchant.Account, methods []schema.Method, cfg platform.Config) (map[schema.Method]limitView, error) {
	defaults, err := command.ParseMethodLimits(cfg.MethodLimits)
	if err != nil {
		return nil, err
	}
	out := map[schema.Method]limitView{}
	for _, m := range methods {
		if !m.Selectable() {
			continue // select has no limits of its own: the chosen method's apply
		}
		l, own := command.MethodLimits(defaults).For(a, m)
		from := map[bool]string{false: "default", true: "merchant"}[own]
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
// method-limits), with the credentials c allows (show's, not
// method-limits').
func showAccount(ctx context.Context, out output, st *merchant.Store, a *merchant.Account, c credentials) error {
	cfg, err := envConfig()
	if err != nil {
		return err
	}
	methods, err := merchantMethods(a.Sandbox, cfg)
	if err != nil {
		return err
	}
	limits, err := effectiveLimits(a, methods, cfg)
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
	v := out.accountView(a, c)
	if out.json {
		v["methods"], v["methodLimits"], v["balances"] = methods, limits, balances
		return out.value(v)
	}
	if err := out.value(v); err != nil {
		return err
	}
	printMethods(out.w, methods, limits)
	printBalances(out.w, balances)
	return nil
}

// printMethods is merchant show's table of the methods the account can use
// and their amount limits ("-": no bound).
func printMethods(w io.Writer, methods []schema.Method, limits map[schema.Method]limitView) {
	fmt.Fprintln(w, "\nMETHODS")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "METHOD\tMIN\tMAX\tLIMITS FROM")
	for _, m := range methods {
		l, ok := limits[m]
		if !ok {
			fmt.Fprintf(tw, "%s\t\t\t(the chosen method's)\n", m)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m, orDash(l.Min), orDash(l.Max), l.From)
	}
	_ = tw.Flush()
}

// printBalances is merchant show's balances, one currency a row.
func printBalances(w io.Writer, balances map[string]string) {
	fmt.Fprintln(w, "\nBALANCES")
	if len(balances) == 0 {
		_ = noRows(w, "balances", "")
		return
	}
	curs := make([]string, 0, len(balances))
	for c := range balances {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CURRENCY\tBALANCE")
	for _, c := range curs {
		fmt.Fprintf(tw, "%s\t%s\n", c, balances[c])
	}
	_ = tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// setMethodLimits is merchant method-limits APPID METHOD: --min and --max
// (either may be left out for no bound) override the default, --clear
// removes the override.
func setMethodLimits(ctx context.Context, ms *operator.Merchants, actor access.Actor, pos []string, min, max string, clear bool) (*merchant.Account, error) {
	appid, m := pos[0], schema.Method(pos[1])
	if !m.Selectable() {
		return nil, fmt.Errorf("merchant method-limits: %q is not a payment method", pos[1])
	}
	if clear && (min != "" || max != "") {
		return nil, fmt.Errorf("merchant method-limits: --clear takes no --min or --max")
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
	return ms.SetMethodLimits(ctx, actor, appid, m, l, clear)
}
