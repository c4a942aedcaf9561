package fiatpsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// Adapter is the family's protocol for the command side: it initialises
// payments, verifies notifications, queries orders and lists the payment
// systems. It keeps nothing between calls but the nonce counter.
type Adapter struct {
	cfg       Config
	caller    *provider.Caller
	shop      string
	lastNonce atomic.Int64
}

var (
	_ provider.Adapter = (*Adapter)(nil)
	_ provider.Systems = (*Adapter)(nil)
)

// New builds the adapter; cfg is completed with its defaults and validated.
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if caller == nil {
		return nil, errors.New("fiatpsp: a caller is required")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Adapter{cfg: cfg, caller: caller, shop: strconv.FormatInt(cfg.ShopID, 10)}, nil
}

// nonce is a fresh, increasing number for each call: the provider refuses a
// nonce it has seen. Milliseconds keep it increasing across restarts.
func (a *Adapter) nonce() string {
	for {
		prev := a.lastNonce.Load()
		n := max(prev+1, time.Now().UnixMilli())
		if a.lastNonce.CompareAndSwap(prev, n) {
			return strconv.FormatInt(n, 10)
		}
	}
}

// signedGet makes an idempotent GET of path with params, shopId, a fresh
// nonce per attempt and the signature over them all.
func (a *Adapter) signedGet(ctx context.Context, call, path string, params map[string]string) (provider.Answer, error) {
	return a.caller.Do(ctx, call, true, func(ctx context.Context) (*http.Request, error) {
		values := map[string]string{"shopId": a.shop, "nonce": a.nonce()}
		for k, v := range params {
			values[k] = v
		}
		values["signature"] = signRequest(values, a.cfg.APIKey)
		q := url.Values{}
		for k, v := range values {
			q.Set(k, v)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.cfg.BaseURL+path+"?"+q.Encode(), nil)
		if err == nil {
			req.Header.Set("Accept", "application/json")
		}
		return req, err
	})
}

// system is a payment system as the provider lists it, enabled or not.
type system struct {
	provider.System
	Enabled bool
}

// Systems lists the payment systems a payer can choose now (the enabled
// ones), as the provider answers them; nothing is cached here.
func (a *Adapter) Systems(ctx context.Context) ([]provider.System, error) {
	all, err := a.listSystems(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]provider.System, 0, len(all))
	for _, s := range all {
		if s.Enabled {
			out = append(out, s.System)
		}
	}
	return out, nil
}

// listSystems is every system the provider lists, disabled ones included:
// a notification may name a system disabled since the payment.
func (a *Adapter) listSystems(ctx context.Context) ([]system, error) {
	ans, err := a.signedGet(ctx, "systems", "/currencies", nil)
	if err != nil {
		return nil, err
	}
	var out SystemsAnswer
	if err := decodeAnswer(ans, &out); err != nil {
		return nil, fmt.Errorf("fiatpsp systems: %w", err)
	}
	if len(out.Currencies) > maxSystems {
		return nil, fmt.Errorf("fiatpsp systems: %d systems listed: %w", len(out.Currencies), errBadAnswer)
	}
	list := make([]system, 0, len(out.Currencies))
	for _, w := range out.Currencies {
		id, ok := PositiveID(w.ID.String())
		if !ok || id > 1<<31 || !decimal.Currency(w.Currency) {
			return nil, fmt.Errorf("fiatpsp systems: system %q: %w", clean(w.ID.String()), errBadAnswer)
		}
		list = append(list, system{
			System:  provider.System{ID: int(id), Name: clean(w.Name), Currency: w.Currency},
			Enabled: w.IsEnabled.String() != "0",
		})
	}
	return list, nil
}

// Initialise creates the payment at the provider in the chosen system; with
// no system chosen yet the payer chooses first (no call).
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	if p.SystemID == "" {
		return provider.Init{NextAction: schema.NextFiatpspSelect}, nil
	}
	values, err := a.createValues(p, a.nonce())
	if err != nil {
		return provider.Init{}, fmt.Errorf("fiatpsp create: %w", err)
	}
	body, err := createBody(values)
	if err != nil {
		return provider.Init{}, fmt.Errorf("fiatpsp create: %w", err)
	}
	ans, err := a.caller.Do(ctx, "create", false, wire.Request(http.MethodPost, a.cfg.BaseURL+"/orders/create", body,
		"Content-Type", "application/json", "Accept", "application/json"))
	if err != nil {
		return provider.Init{}, err
	}
	return readCreated(ans)
}

// readCreated takes the provider's order id and the payer's location.
func readCreated(ans provider.Answer) (provider.Init, error) {
	var out CreateAnswer
	if err := decodeAnswer(ans, &out); err != nil {
		return provider.Init{}, fmt.Errorf("fiatpsp create: %w", err)
	}
	id, ok := PositiveID(out.OrderID.String())
	u, err := url.Parse(out.Location)
	if !ok || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(out.Location) > 2048 {
		return provider.Init{}, fmt.Errorf("fiatpsp create: no order id or location: %w", errBadAnswer)
	}
	return provider.Init{ProviderURL: out.Location, Ref: strconv.FormatInt(id, 10)}, nil
}

// numericKeys are the create call's members sent as JSON numbers; the
// signature takes their decimal text all the same.
var numericKeys = map[string]bool{"shopId": true, "nonce": true, "i": true}

// createValues are the create call's members as the signature sees them.
// The amount is sent with two decimals and the notification will sign it
// exactly so.
func (a *Adapter) createValues(p provider.Payment, nonce string) (map[string]string, error) {
	sys, ok := PositiveID(p.SystemID)
	if !ok || sys > 1<<31 {
		return nil, fmt.Errorf("payment system id %q is not a positive integer: %w", clean(p.SystemID), provider.ErrRefused)
	}
	if p.OrderID == "" || p.Charge.Amount <= 0 || !decimal.Currency(p.Charge.Currency) {
		return nil, fmt.Errorf("order id, a positive charge and its currency are required: %w", provider.ErrRefused)
	}
	email := p.CustomerEmail
	if email == "" {
		email = a.cfg.FallbackEmail
	}
	ip, err := netip.ParseAddr(p.ClientIP)
	if email == "" || err != nil {
		return nil, fmt.Errorf("the provider requires the payer's e-mail and IP address: %w", provider.ErrRefused)
	}
	v := map[string]string{
		"shopId": a.shop, "nonce": nonce, "paymentId": p.OrderID, "i": strconv.FormatInt(sys, 10),
		"email": email, "ip": ip.String(), "amount": p.Charge.Amount.String(), "currency": p.Charge.Currency,
	}
	for k, u := range map[string]string{"notification_url": p.NotifyURL, "success_url": p.SuccessURL, "failure_url": p.FailURL} {
		if u != "" {
			v[k] = u
		}
	}
	v["signature"] = signRequest(v, a.cfg.APIKey)
	return v, nil
}

// createBody is the JSON of the create call, numbers as numbers.
func createBody(values map[string]string) ([]byte, error) {
	m := make(map[string]any, len(values))
	for k, v := range values {
		if numericKeys[k] {
			m[k] = json.Number(v)
		} else {
			m[k] = v
		}
	}
	return json.Marshal(m)
}
