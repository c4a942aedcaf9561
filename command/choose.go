package command

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Choose is the select page's use case: the methods offered for an order,
// and the payer's choice among them, which takes the order on to that
// method's next step.
type Choose struct {
	accounts  Accounts
	providers *provider.Registry
	store     *Store
	usdt      *USDT
	offer     *usdtOffer
	limits    MethodLimits
	init      *initiator
	log       *slog.Logger
}

// Methods lists what the select page offers for order o, in the method
// table's order: each method the payer may pick for the order's currency
// and mode (one with a provider; balance needs none), restricted to the
// merchant's allowedPaymentMethods when given, each with its amount limits
// and disabled when the amount is out of them. balance is offered by
// default for USD orders only (SPEC.md's select flow); in another currency
// balance takes, only when the merchant lists it.
func (h *Choose) Methods(ctx context.Context, o *schema.Order) ([]schema.MethodOption, error) {
	acct, err := h.accounts.Lookup(ctx, o.AppID)
	if err != nil {
		return nil, fmt.Errorf("look up merchant of order %s: %w", o.ID, err)
	}
	var allowed []schema.Method
	for _, code := range strings.Split(o.AllowedMethods, ",") {
		if code = strings.TrimSpace(code); code != "" {
			allowed = append(allowed, schema.Method(code))
		}
	}
	var out []schema.MethodOption
	for _, m := range schema.AllMethods() {
		if !h.offers(m, o, allowed, acct.Group) {
			continue
		}
		l, _ := h.limits.For(acct, m)
		reason := limitReason(l, o.Amount)
		out = append(out, schema.MethodOption{Method: m, Limits: l, Enabled: reason == "", Reason: reason})
	}
	return out, nil
}

// offers reports whether the select page lists m for o, limits aside.
func (h *Choose) offers(m schema.Method, o *schema.Order, allowed []schema.Method, group string) bool {
	if !m.Selectable() || !m.Supports(o.Currency) {
		return false
	}
	if len(allowed) > 0 && !slices.Contains(allowed, m) {
		return false
	}
	if m == schema.MethodBalance {
		return len(allowed) > 0 || o.Currency == "USD"
	}
	if m == schema.MethodUSDTDirect && len(h.offer.For(o.Sandbox)) == 0 {
		return false // nobody could pay it
	}
	if _, ok := h.providers.For(m, o.Sandbox); !ok {
		return false
	}
	return !routed(m) || h.routable(m, o, group)
}

// routable reports whether one of m's channels may take o now, judged on
// what m would charge (a BDT method's bounds and caps are in BDT).
func (h *Choose) routable(m schema.Method, o *schema.Order, group string) bool {
	c := *o
	c.Method = m
	if chargedInBDT[m] && h.init.chargeIn(&c, "BDT") != nil {
		return false
	}
	return h.init.route.router.Available(query(&c, group, h.init.now()))
}

// ChooseMethod is the select page's confirm: it fixes the payer's method on
// order id once, with its event, then takes the order to that method's next
// step: a provider's checkout, a second choice (fiatpsp's system,
// cryptopsp's currency), the USDT payable amount, or the balance login. Two
// confirms race to one winner in Redis; the other gets a conflict.
func (h *Choose) ChooseMethod(ctx context.Context, id string, m schema.Method) (*schema.Order, error) {
	o, err := h.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := awaitingSelect(o); err != nil {
		return nil, err
	}
	if err := h.checkOffered(ctx, o, m); err != nil {
		return nil, err
	}
	o.Method = m
	h.init.recordFee(o)
	if err := h.applyChoice(ctx, o); err != nil {
		return nil, err
	}
	return h.store.Get(ctx, id)
}

// awaitingSelect says why o takes no method choice now, if it does not.
func awaitingSelect(o *schema.Order) error {
	switch {
	case o.Status == schema.StatusPaid:
		return platform.Errorf(platform.KindConflict, "order %s is paid", o.ID)
	case !o.Status.Live():
		return platform.Errorf(platform.KindConflict, "order %s is %s and takes no payment method", o.ID, o.Status)
	case o.NextAction != schema.NextMethodSelect:
		return platform.Errorf(platform.KindConflict, "order %s has its payment method %s chosen already", o.ID, o.Method)
	}
	return nil
}

// checkOffered refuses a method the select page does not offer for o, or
// offers disabled, naming the bound the amount misses.
func (h *Choose) checkOffered(ctx context.Context, o *schema.Order, m schema.Method) error {
	opts, err := h.Methods(ctx, o)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(opts, func(opt schema.MethodOption) bool { return opt.Method == m })
	if i < 0 {
		return platform.Errorf(platform.KindInvalidParameter, "paymentMethod %q is not offered for order %s", string(m), o.ID)
	}
	switch l := opts[i].Limits; opts[i].Reason {
	case "below_min":
		return platform.Errorf(platform.KindInvalidParameter, "amount %s %s is below the minimum %s %s of paymentMethod %s", o.Amount, o.Currency, l.Min, o.Currency, m)
	case "above_max":
		return platform.Errorf(platform.KindInvalidParameter, "amount %s %s is above the maximum %s %s of paymentMethod %s", o.Amount, o.Currency, l.Max, o.Currency, m)
	}
	return nil
}

// secondChoice is the next action of a method whose payer chooses again.
var secondChoice = map[schema.Method]string{
	schema.MethodFiatPSP:    schema.NextFiatpspSelect,
	schema.MethodCryptoPSP:  schema.NextCryptopspSelect,
	schema.MethodUSDTDirect: schema.NextUSDTDirectPay,
	schema.MethodBalance:    schema.NextBalanceLogin,
}

// applyChoice writes o.Method with what its next step needs, guarded on the
// order still waiting at the select page, then asks the provider when the
// method has one to ask now.
func (h *Choose) applyChoice(ctx context.Context, o *schema.Order) error {
	if next, ok := secondChoice[o.Method]; ok {
		return h.chooseDeferred(ctx, o, next)
	}
	a, err := pendingAdapter(h.providers, o.Method, o)
	if err != nil {
		return err
	}
	if err := h.init.charge(ctx, o, a); err != nil {
		return err
	}
	cs, err := h.init.channels(ctx, o)
	if err != nil {
		return err
	}
	fields := append([]string{schema.FMethod, string(o.Method)}, feeFields(o)...)
	if err := h.init.fixChoice(ctx, o, schema.NextMethodSelect, fields...); err != nil {
		return err
	}
	return h.init.initChosen(ctx, o, cs)
}

// chooseDeferred fixes a method whose next step is ours, not a provider's.
// A USDT amount is reserved first and written with the choice; it is given
// back when another confirm won.
func (h *Choose) chooseDeferred(ctx context.Context, o *schema.Order, next string) error {
	if o.Method == schema.MethodUSDTDirect {
		lit, err := h.usdt.Reserve(ctx, o.ID, o.Amount, o.Currency)
		if err != nil {
			return err
		}
		o.PayableAmount = lit
	}
	o.NextAction = next
	fields := append([]string{schema.FMethod, string(o.Method), schema.FPayable, o.PayableAmount}, feeFields(o)...)
	err := h.init.fixChoice(ctx, o, schema.NextMethodSelect, fields...)
	if err != nil && o.PayableAmount != "" {
		if rerr := h.usdt.Release(context.WithoutCancel(ctx), o.ID, o.PayableAmount); rerr != nil {
			h.log.Warn("release usdt amount of a lost choice", "order", o.ID, "err", rerr)
		}
	}
	return err
}
