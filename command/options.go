package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

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
	accounts  Accounts
	providers *provider.Registry
	ttl       time.Duration
	mu        sync.Mutex
	cache     map[bool]cachedSystems
}

type cachedSystems struct {
	list []provider.System
	at   time.Time
}

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

// MerchantSystems is fiatpsp's payment systems for the merchant appid,
// whose query key authenticates the call: what a merchant picks
// fiatpspSystemId from.
func (o *Options) MerchantSystems(ctx context.Context, appid, key string) ([]provider.System, error) {
	acct, err := o.accounts.AuthQuery(ctx, appid, key)
	if err != nil {
		return nil, err
	}
	a, ok := o.providers.For(schema.MethodFiatPSP, acct.Sandbox)
	if !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod fiatpsp is not available for this merchant")
	}
	return o.systems(ctx, a, acct.Sandbox)
}
