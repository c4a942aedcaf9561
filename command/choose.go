package command

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Methods lists what the select page offers for order o, in the method
// table's order: each method the payer may pick for the order's currency
// and mode (one with a provider; balance needs none), restricted to the
// merchant's allowedPaymentMethods when given, each with its amount limits
// and disabled when the amount is out of them. balance is offered by
// default for USD orders only (SPEC.md's select flow); in another currency
// balance takes, only when the merchant lists it.
func (h *CreateOrder) Methods(ctx context.Context, o *schema.Order) ([]schema.MethodOption, error) {
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
		if !h.offers(m, o, allowed) {
			continue
		}
		l := h.LimitsFor(acct, m)
		reason := limitReason(l, o.Amount)
		out = append(out, schema.MethodOption{Method: m, Limits: l, Enabled: reason == "", Reason: reason})
	}
	return out, nil
}

// offers reports whether the select page lists m for o, limits aside.
func (h *CreateOrder) offers(m schema.Method, o *schema.Order, allowed []schema.Method) bool {
	if !m.Selectable() || !m.Supports(o.Currency) {
		return false
	}
	if len(allowed) > 0 && !slices.Contains(allowed, m) {
		return false
	}
	if m == schema.MethodBalance {
		return len(allowed) > 0 || o.Currency == "USD"
	}
	if m == schema.MethodUSDTDirect && len(h.USDTNetworks(o.Sandbox)) == 0 {
		return false // nobody could pay it
	}
	_, ok := h.providers.For(m, o.Sandbox)
	return ok
}

// ChooseMethod is the select page's confirm: it fixes the payer's method on
// order id once, with its event, then takes the order to that method's next
// step: a provider's checkout, a second choice (fiatpsp's system,
// cryptopsp's currency), the USDT payable amount, or the balance login. Two
// confirms race to one winner in Redis; the other gets a conflict.
func (h *CreateOrder) ChooseMethod(ctx context.Context, id string, m schema.Method) (*schema.Order, error) {
	o, err := h.Order(ctx, id)
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
	if err := h.applyChoice(ctx, o); err != nil {
		return nil, err
	}
	return h.Order(ctx, id)
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
func (h *CreateOrder) checkOffered(ctx context.Context, o *schema.Order, m schema.Method) error {
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
func (h *CreateOrder) applyChoice(ctx context.Context, o *schema.Order) error {
	if next, ok := secondChoice[o.Method]; ok {
		return h.chooseDeferred(ctx, o, next)
	}
	a, ok := h.providers.For(o.Method, o.Sandbox)
	if !ok {
		return platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available", o.Method)
	}
	if err := h.charge(ctx, o, a); err != nil {
		return err
	}
	if err := h.fixChoice(ctx, o, schema.NextMethodSelect, schema.FMethod, string(o.Method)); err != nil {
		return err
	}
	return h.initChosen(ctx, o, a)
}

// chooseDeferred fixes a method whose next step is ours, not a provider's.
// A USDT amount is reserved first and written with the choice; it is given
// back when another confirm won.
func (h *CreateOrder) chooseDeferred(ctx context.Context, o *schema.Order, next string) error {
	if o.Method == schema.MethodUSDTDirect {
		lit, err := h.usdt.Reserve(ctx, o.ID, o.Amount, o.Currency)
		if err != nil {
			return err
		}
		o.PayableAmount = lit
	}
	o.NextAction = next
	err := h.fixChoice(ctx, o, schema.NextMethodSelect, schema.FMethod, string(o.Method), schema.FPayable, o.PayableAmount)
	if err != nil && o.PayableAmount != "" {
		if rerr := h.usdt.Release(context.WithoutCancel(ctx), o.ID, o.PayableAmount); rerr != nil {
			h.log.Warn("release usdt amount of a lost choice", "order", o.ID, "err", rerr)
		}
	}
	return err
}

// errChosen is a choice that another request made first.
var errChosen = errors.New("choice made already")

// fixChoice writes a payer's choice on o once, with its changed event: the
// fields, o's next action (empty while a provider is asked) and its charge,
// if the order still waits at next. Losing the race is a conflict.
func (h *CreateOrder) fixChoice(ctx context.Context, o *schema.Order, next string, fields ...string) error {
	charged := ""
	if o.ChargeCurrency != "" {
		charged = fmt.Sprint(int64(o.ChargeAmount))
	}
	if o.NextAction == next {
		o.NextAction = ""
	}
	fields = append(fields, schema.FNextAction, o.NextAction,
		schema.FChargeAmt, charged, schema.FChargeCur, o.ChargeCurrency, schema.FFXRate, o.FXRate)
	applied, err := h.store.Update(ctx, o.ID, []schema.Status{schema.StatusPending, schema.StatusReady}, schema.FNextAction, next, h.now(), fields...)
	if err != nil {
		return err
	}
	if !applied {
		return &platform.Error{Kind: platform.KindConflict, Msg: "order " + o.ID + " was confirmed already", Err: errChosen}
	}
	return nil
}

// initChosen asks a's provider for o after the choice was fixed, and records
// its answer; when it refuses or does not answer, the order fails.
func (h *CreateOrder) initChosen(ctx context.Context, o *schema.Order, a provider.Adapter) error {
	init, err := a.Initialise(ctx, h.payment(o))
	if err != nil {
		return h.providerFailed(ctx, o, err)
	}
	applyInit(o, init)
	_, err = h.store.Update(ctx, o.ID, []schema.Status{schema.StatusReady}, schema.FProviderRef, "", h.now(),
		schema.FProviderURL, init.ProviderURL, schema.FQRPayload, init.QRPayload, schema.FProviderRef, init.Ref)
	return err
}

// Order reads order id for the payer's pages.
func (h *CreateOrder) Order(ctx context.Context, id string) (*schema.Order, error) {
	return h.store.Get(ctx, id)
}
