package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Options lists what a payer chooses from on the two-step flows:
// GET /api/fiatpsp/currencies (fiatpsp's payment systems; with appid and key
// for a merchant picking fiatpspSystemId, with paymentId for the payer, each
// system then with its FX quote) and GET /api/cryptopsp/currencies?paymentId=
// (the cryptocurrencies, each with the provider's minimum for the order).
// The systems list is cached for a minute per mode: it changes rarely and
// every payer page asks for it.
type Options struct {
	create *CreateOrder
	ttl    time.Duration
	mu     sync.Mutex
	cache  map[bool]cachedSystems
}

type cachedSystems struct {
	list []provider.System
	at   time.Time
}

// Options are the create side's option lists (one cache per process).
func (h *CreateOrder) Options() *Options { return h.options }

func (o *Options) systems(ctx context.Context, a provider.Adapter, sandbox bool) ([]provider.System, error) {
	l, ok := a.(provider.Systems)
	if !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "fiatpsp lists no payment systems")
	}
	o.mu.Lock()
	c, hit := o.cache[sandbox]
	o.mu.Unlock()
	if hit && time.Since(c.at) < o.ttl {
		return c.list, nil
	}
	list, err := l.Systems(ctx)
	if err != nil {
		return nil, &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider did not list its payment systems; retry later", Err: err}
	}
	o.mu.Lock()
	o.cache[sandbox] = cachedSystems{list: list, at: time.Now()}
	o.mu.Unlock()
	return list, nil
}

// system finds the payment system a payer or merchant named.
func (o *Options) system(ctx context.Context, a provider.Adapter, sandbox bool, lit string) (provider.System, error) {
	id, err := strconv.Atoi(lit)
	if err != nil || id <= 0 {
		return provider.System{}, platform.Errorf(platform.KindInvalidParameter, "fiatpspSystemId must be a payment system id from /api/fiatpsp/currencies")
	}
	list, err := o.systems(ctx, a, sandbox)
	if err != nil {
		return provider.System{}, err
	}
	for _, s := range list {
		if s.ID == id {
			return s, nil
		}
	}
	return provider.System{}, platform.Errorf(platform.KindInvalidParameter, "fiatpspSystemId %d is not a payment system of the provider", id)
}

// crypto checks cur against the provider's list and its minimum for the
// order's currency.
func (o *Options) crypto(ctx context.Context, a provider.Adapter, ord *schema.Order, cur string) (schema.CryptoOption, error) {
	l, ok := a.(provider.Currencies)
	if !ok {
		return schema.CryptoOption{}, platform.Errorf(platform.KindMethodUnavailable, "cryptopsp lists no currencies")
	}
	if cur == "" || len(cur) > 16 {
		return schema.CryptoOption{}, platform.Errorf(platform.KindInvalidParameter, "pay_currency must name a cryptocurrency")
	}
	min, err := l.MinAmount(ctx, ord.Currency, cur)
	if errors.Is(err, provider.ErrNotFound) || errors.Is(err, provider.ErrRefused) {
		return schema.CryptoOption{}, platform.Errorf(platform.KindInvalidParameter, "pay_currency %s is not offered for %s", cur, ord.Currency)
	}
	if err != nil {
		return schema.CryptoOption{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider did not give its minimum amount; retry later", Err: err}
	}
	if min.Currency != ord.Currency {
		return schema.CryptoOption{}, fmt.Errorf("cryptopsp minimum in %s for a %s order", min.Currency, ord.Currency)
	}
	return schema.CryptoOption{Currency: cur, Min: min.Amount, Enabled: ord.Amount >= min.Amount}, nil
}

// FiatpspSystems lists fiatpsp's payment systems for order o, each with
// what the payer would be charged in its currency at the current rate; a
// system whose currency has no rate set is listed unavailable.
func (h *CreateOrder) FiatpspSystems(ctx context.Context, o *schema.Order) ([]schema.SystemOption, error) {
	a, ok := h.providers.For(schema.MethodFiatPSP, o.Sandbox)
	if !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod fiatpsp is not available")
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
func (h *CreateOrder) CryptoCurrencies(ctx context.Context, o *schema.Order) ([]schema.CryptoOption, error) {
	a, ok := h.providers.For(schema.MethodCryptoPSP, o.Sandbox)
	if !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod cryptopsp is not available")
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

// systemView is one payment system in GET /api/fiatpsp/currencies.
type systemView struct {
	provider.System
	Quote     string `json:"quote,omitempty"` // what the payer is charged, in the system's currency
	Rate      string `json:"rate,omitempty"`
	Available bool   `json:"available"`
}

// cryptoView is one cryptocurrency in GET /api/cryptopsp/currencies.
type cryptoView struct {
	Currency string `json:"currency"`
	MinLit   string `json:"minAmount"`
	Enabled  bool   `json:"enabled"`
}

// FiatpspCurrencies serves GET /api/fiatpsp/currencies.
func (o *Options) FiatpspCurrencies(c *fiber.Ctx) error {
	ctx := c.UserContext()
	if id := c.Query("paymentId"); id != "" {
		return o.fiatpspFor(c, id)
	}
	acct, err := o.create.accounts.AuthQuery(ctx, c.Query("appid"), c.Query("key"))
	if err != nil {
		return err
	}
	a, ok := o.create.providers.For(schema.MethodFiatPSP, acct.Sandbox)
	if !ok {
		return platform.Errorf(platform.KindMethodUnavailable, "paymentMethod fiatpsp is not available for this merchant")
	}
	list, err := o.systems(ctx, a, acct.Sandbox)
	if err != nil {
		return err
	}
	return platform.OK(c, list)
}

// fiatpspFor lists the systems with the order's quote in each. The answer
// has always carried the rate 1 for a system in the order's own currency.
func (o *Options) fiatpspFor(c *fiber.Ctx, id string) error {
	ord, _, err := o.create.awaiting(c.UserContext(), id, schema.MethodFiatPSP, schema.NextFiatpspSelect)
	if err != nil {
		return err
	}
	list, err := o.create.FiatpspSystems(c.UserContext(), ord)
	if err != nil {
		return err
	}
	out := make([]systemView, len(list))
	for i, s := range list {
		out[i] = systemView{System: provider.System{ID: s.ID, Name: s.Name, Currency: s.Currency}, Rate: s.Rate, Available: s.Available}
		if s.Available {
			out[i].Quote = s.Quote.String()
			if s.Rate == "" {
				out[i].Rate = fx.Rate(fx.Micros).String()
			}
		}
	}
	return platform.OK(c, fiber.Map{"paymentId": ord.ID, "amount": ord.Amount.String(), "currency": ord.Currency, "systems": out})
}

// CryptopspCurrencies serves GET /api/cryptopsp/currencies?paymentId=: each
// cryptocurrency with the provider's minimum for the order; one below it is
// shown disabled.
func (o *Options) CryptopspCurrencies(c *fiber.Ctx) error {
	ord, _, err := o.create.awaiting(c.UserContext(), c.Query("paymentId"), schema.MethodCryptoPSP, schema.NextCryptopspSelect)
	if err != nil {
		return err
	}
	list, err := o.create.CryptoCurrencies(c.UserContext(), ord)
	if err != nil {
		return err
	}
	out := make([]cryptoView, len(list))
	for i, opt := range list {
		out[i] = cryptoView{Currency: opt.Currency, MinLit: opt.Min.String(), Enabled: opt.Enabled}
	}
	return platform.OK(c, fiber.Map{"paymentId": ord.ID, "amount": ord.Amount.String(), "currency": ord.Currency, "currencies": out})
}
