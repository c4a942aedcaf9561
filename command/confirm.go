package command

import (
	"context"
	"strconv"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// ConfirmChoice is the second choice of the two-step flows: fiatpsp's
// payment system and cryptopsp's cryptocurrency, each listed with what it
// costs the payer, then fixed once and the provider initialised. The
// payer's pages and the merchant's signed API call (web/api/confirm.go) both
// confirm through it.
type ConfirmChoice struct {
	signed    *signedCalls
	store     *Store
	providers *provider.Registry
	options   *Options
	rates     Rates
	init      *initiator
}

// ConfirmFiatpsp fixes the fiatpsp payment system systemID on order id,
// charged in the system's currency at the rate of this moment, then
// initialises the provider. It returns the order as it is now.
func (h *ConfirmChoice) ConfirmFiatpsp(ctx context.Context, id, systemID string) (*schema.Order, error) {
	o, a, err := h.awaiting(ctx, id, schema.MethodFiatPSP, schema.NextFiatpspSelect)
	if err != nil {
		return nil, err
	}
	sys, err := h.options.system(ctx, a, o.Sandbox, systemID)
	if err != nil {
		return nil, err
	}
	o.FiatpspSystemID = strconv.Itoa(sys.ID)
	if err := h.init.chargeIn(o, sys.Currency); err != nil {
		return nil, err
	}
	return h.confirmed(ctx, o, schema.FFiatpspSys, o.FiatpspSystemID)
}

// ConfirmCryptopsp fixes the cryptocurrency payCurrency on order id, after
// the provider's minimum for the pair: an order below it is refused with
// the minimum, nothing changed.
func (h *ConfirmChoice) ConfirmCryptopsp(ctx context.Context, id, payCurrency string) (*schema.Order, error) {
	o, a, err := h.awaiting(ctx, id, schema.MethodCryptoPSP, schema.NextCryptopspSelect)
	if err != nil {
		return nil, err
	}
	opt, err := h.options.crypto(ctx, a, o, payCurrency)
	if err != nil {
		return nil, err
	}
	if !opt.Enabled {
		return nil, platform.Errorf(platform.KindBelowMinimum, "the amount %s %s is below the minimum %s %s for %s", o.Amount, o.Currency, opt.Min, o.Currency, schema.CryptoName(payCurrency))
	}
	o.PayCurrency = payCurrency
	return h.confirmed(ctx, o, schema.FPayCurrency, payCurrency)
}

// confirmed fixes the choice (once), then asks the provider.
func (h *ConfirmChoice) confirmed(ctx context.Context, o *schema.Order, field, value string) (*schema.Order, error) {
	cs, err := h.init.channels(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := h.init.fixChoice(ctx, o, o.NextAction, field, value); err != nil {
		return nil, err
	}
	if err := h.init.initChosen(ctx, o, cs); err != nil {
		return nil, err
	}
	return h.store.Get(ctx, o.ID)
}

// awaiting loads a live order of method still waiting for the payer's choice.
func (h *ConfirmChoice) awaiting(ctx context.Context, id string, m schema.Method, next string) (*schema.Order, provider.Adapter, error) {
	o, err := h.store.Get(ctx, id)
	if platform.KindOf(err) == platform.KindNotFound || (err == nil && o.Method != m) {
		return nil, nil, platform.Errorf(platform.KindNotFound, "no %s order %s", m, id)
	}
	if err != nil {
		return nil, nil, err
	}
	if !o.Status.Live() || o.NextAction != next {
		return nil, nil, platform.Errorf(platform.KindConflict, "order %s is %s and takes no choice now", id, o.Status)
	}
	a, err := pendingAdapter(h.providers, m, o)
	if err != nil {
		return nil, nil, err
	}
	return o, a, nil
}

// FiatpspSystems lists fiatpsp's payment systems for order o, each with
// what the payer would be charged in its currency at the current rate; a
// system whose currency has no rate set is listed unavailable.
func (h *ConfirmChoice) FiatpspSystems(ctx context.Context, o *schema.Order) ([]schema.SystemOption, error) {
	a, err := pendingAdapter(h.providers, schema.MethodFiatPSP, o)
	if err != nil {
		return nil, err
	}
	list, err := h.options.systems(ctx, a, o.Sandbox)
	if err != nil {
		return nil, err
	}
	out := make([]schema.SystemOption, len(list))
	for i, s := range list {
		out[i] = schema.SystemOption{ID: s.ID, Name: s.Name, Currency: s.Currency}
		r, ok := h.rates.Rate(fx.Pair{Base: o.Currency, Quote: s.Currency})
		if !ok {
			continue
		}
		out[i].Quote, out[i].Available = fx.Convert(o.Amount, r), true
		if s.Currency != o.Currency {
			out[i].Rate = r.String()
		}
	}
	return out, nil
}

// CryptoCurrencies lists cryptopsp's cryptocurrencies for order o, each with
// the provider's minimum in the order's currency; one the order is below is
// disabled, and a pair the provider does not price is left out.
func (h *ConfirmChoice) CryptoCurrencies(ctx context.Context, o *schema.Order) ([]schema.CryptoOption, error) {
	a, err := pendingAdapter(h.providers, schema.MethodCryptoPSP, o)
	if err != nil {
		return nil, err
	}
	l, ok := a.(provider.Currencies)
	if !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "cryptopsp lists no currencies")
	}
	curs, err := l.Currencies(ctx)
	if err != nil {
		return nil, &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider did not list its currencies; retry later", Err: err}
	}
	out := make([]schema.CryptoOption, 0, len(curs))
	for _, cur := range curs {
		opt, err := h.options.crypto(ctx, a, o, cur)
		if err != nil {
			continue // a pair the provider does not price is not offered
		}
		out = append(out, opt)
	}
	return out, nil
}

// OwnOrder runs the signed-call checks (form, appid, enabled, sign, the create
// rate class) and reads the order p names, which must be the merchant's:
// another's is not found, as on every merchant API.
func (h *ConfirmChoice) OwnOrder(ctx context.Context, form schema.SignedForm, p schema.Params) (*schema.Order, error) {
	acct, err := h.signed.authenticate(ctx, form, p)
	if err != nil {
		return nil, err
	}
	if err := h.signed.allow(ctx, acct); err != nil {
		return nil, err
	}
	o, err := h.store.Get(ctx, p["paymentId"])
	if err == nil && o.AppID != acct.AppID {
		return nil, orderNotFound(p["paymentId"])
	}
	return o, err
}

// Awaiting is the live order id of method m still waiting for the payer's
// choice next: what the option lists are answered for.
func (h *ConfirmChoice) Awaiting(ctx context.Context, id string, m schema.Method, next string) (*schema.Order, error) {
	o, _, err := h.awaiting(ctx, id, m, next)
	return o, err
}
