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

// cryptoOption is one cryptocurrency for an order.
type cryptoOption struct {
	Currency string        `json:"currency"`
	Min      schema.Amount `json:"-"`
	MinLit   string        `json:"minAmount"`
	Enabled  bool          `json:"enabled"`
}

// crypto checks cur against the provider's list and its minimum for the
// order's currency.
func (o *Options) crypto(ctx context.Context, a provider.Adapter, ord *schema.Order, cur string) (cryptoOption, error) {
	l, ok := a.(provider.Currencies)
	if !ok {
		return cryptoOption{}, platform.Errorf(platform.KindMethodUnavailable, "cryptopsp lists no currencies")
	}
	if cur == "" || len(cur) > 16 {
		return cryptoOption{}, platform.Errorf(platform.KindInvalidParameter, "pay_currency must name a cryptocurrency")
	}
	min, err := l.MinAmount(ctx, ord.Currency, cur)
	if errors.Is(err, provider.ErrNotFound) || errors.Is(err, provider.ErrRefused) {
		return cryptoOption{}, platform.Errorf(platform.KindInvalidParameter, "pay_currency %s is not offered for %s", cur, ord.Currency)
	}
	if err != nil {
		return cryptoOption{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider did not give its minimum amount; retry later", Err: err}
	}
	if min.Currency != ord.Currency {
		return cryptoOption{}, fmt.Errorf("cryptopsp minimum in %s for a %s order", min.Currency, ord.Currency)
	}
	return cryptoOption{Currency: cur, Min: min.Amount, MinLit: min.Amount.String(), Enabled: ord.Amount >= min.Amount}, nil
}

// systemView is one payment system, with its quote for an order.
type systemView struct {
	provider.System
	Quote     string `json:"quote,omitempty"` // what the payer is charged, in the system's currency
	Rate      string `json:"rate,omitempty"`
	Available bool   `json:"available"`
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

// fiatpspFor lists the systems with the order's quote in each.
func (o *Options) fiatpspFor(c *fiber.Ctx, id string) error {
	ord, a, err := (&Confirm{create: o.create}).awaiting(c.UserContext(), id, schema.MethodFiatPSP, schema.NextFiatpspSelect)
	if err != nil {
		return err
	}
	list, err := o.systems(c.UserContext(), a, ord.Sandbox)
	if err != nil {
		return err
	}
	out := make([]systemView, len(list))
	for i, s := range list {
		out[i] = systemView{System: s}
		if r, ok := o.create.rates.Rate(fx.Pair{Base: ord.Currency, Quote: s.Currency}); ok {
			out[i].Quote, out[i].Rate, out[i].Available = fx.Convert(ord.Amount, r).String(), r.String(), true
		}
	}
	return platform.OK(c, fiber.Map{"paymentId": ord.ID, "amount": ord.Amount.String(), "currency": ord.Currency, "systems": out})
}

// CryptopspCurrencies serves GET /api/cryptopsp/currencies?paymentId=: each
// cryptocurrency with the provider's minimum for the order; one below it is
// shown disabled.
func (o *Options) CryptopspCurrencies(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ord, a, err := (&Confirm{create: o.create}).awaiting(ctx, c.Query("paymentId"), schema.MethodCryptoPSP, schema.NextCryptopspSelect)
	if err != nil {
		return err
	}
	l, ok := a.(provider.Currencies)
	if !ok {
		return platform.Errorf(platform.KindMethodUnavailable, "cryptopsp lists no currencies")
	}
	curs, err := l.Currencies(ctx)
	if err != nil {
		return &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider did not list its currencies; retry later", Err: err}
	}
	out := make([]cryptoOption, 0, len(curs))
	for _, cur := range curs {
		opt, err := o.crypto(ctx, a, ord, cur)
		if err != nil {
			continue // a pair the provider does not price is not offered
		}
		out = append(out, opt)
	}
	return platform.OK(c, fiber.Map{"paymentId": ord.ID, "amount": ord.Amount.String(), "currency": ord.Currency, "currencies": out})
}
