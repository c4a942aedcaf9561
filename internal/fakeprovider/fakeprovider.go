// Package fakeprovider is a provider family for tests: the command side's
// and its doors' tests pay, fail and refund through it without a real
// provider's wire format (the real families are tested against their
// vectors in provider/...).
package fakeprovider

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Provider is a provider family reduced to what the tests of the command
// side and its doors need: it initialises like a redirect or QR provider,
// and its notifications are JSON signed with HMAC-SHA256 of Secret.
type Provider struct {
	Base string
	// Key signs this account's notifications (a channel's own secret);
	// empty is Secret.
	Key     string
	Fail    atomic.Pointer[error] // what Initialise returns, if set
	Delay   time.Duration
	Calls   atomic.Int64
	Queries atomic.Int64 // Query calls
	Last    atomic.Value // the last Payment
}

// Secret signs the fake family's notifications.
const Secret = "fake-provider-secret"

func (f *Provider) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	f.Calls.Add(1)
	f.Last.Store(p)
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-ctx.Done():
			return provider.Init{}, fmt.Errorf("fake: %w", provider.ErrUnavailable)
		}
	}
	if err := f.Fail.Load(); err != nil && *err != nil {
		return provider.Init{}, *err
	}
	checkout := f.Base + "/fake-provider/checkout/" + url.PathEscape(p.OrderID)
	if p.Method == schema.MethodWalletA || p.Method == schema.MethodWalletB {
		return provider.Init{QRPayload: checkout, Ref: "ref-" + p.OrderID}, nil
	}
	return provider.Init{ProviderURL: checkout, Ref: "ref-" + p.OrderID}, nil
}

// Note is the fake family's notification body.
type Note struct {
	Order    string `json:"order"`
	Outcome  string `json:"outcome"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	Charge   string `json:"charge,omitempty"` // the Init.Ref it names, as InitRef
}

// Sign is the X-Fake-Sig header of a notification body.
func Sign(body []byte) string { return SignWith(Secret, body) }

// SignWith is Sign with an account's own Key.
func SignWith(key string, body []byte) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func (f *Provider) secret() string {
	if f.Key != "" {
		return f.Key
	}
	return Secret
}

// Outcomes are what a Note's outcome words mean.
var Outcomes = map[string]provider.Outcome{
	"paid": provider.OutcomePaid, "partial": provider.OutcomePartial, "failed": provider.OutcomeFailed,
	"expired": provider.OutcomeExpired, "pending": provider.OutcomePending, "refunded": provider.OutcomeRefunded,
}

func (f *Provider) Verify(_ context.Context, r *provider.Request) (provider.Notification, error) {
	if !hmac.Equal([]byte(r.Header.Get("X-Fake-Sig")), []byte(SignWith(f.secret(), r.Body))) {
		return provider.Notification{}, fmt.Errorf("fake: %w", provider.ErrSignature)
	}
	var n Note
	if err := json.Unmarshal(r.Body, &n); err != nil {
		return provider.Notification{}, fmt.Errorf("fake: %w: %v", provider.ErrMalformed, err)
	}
	out := provider.Notification{OrderID: n.Order, Ref: "ref-" + n.Order, InitRef: n.Charge, Outcome: Outcomes[n.Outcome],
		Fields: map[string]string{"order": n.Order, "outcome": n.Outcome}}
	if n.Amount != "" {
		amt, err := schema.ParseAmount(n.Amount)
		if err != nil {
			return provider.Notification{}, fmt.Errorf("fake: %w: amount", provider.ErrMalformed)
		}
		out.Paid = provider.Money{Amount: amt, Currency: n.Currency}
	}
	return out, nil
}

func (f *Provider) Query(context.Context, string, string) (provider.Notification, error) {
	f.Queries.Add(1)
	return provider.Notification{}, provider.ErrNotFound
}

func (f *Provider) Reply(_ provider.Notification, err error) provider.Reply {
	if err != nil {
		return provider.Reply{Status: 400, Body: "fail"}
	}
	return provider.Reply{Status: 200, Body: "success"}
}

// Registry serves every method with f for sandbox merchants, and select
// and bdcard (the provider tests' live family) for live ones.
func Registry(f *Provider) *provider.Registry {
	sandbox, live := map[schema.Method]provider.Adapter{}, map[schema.Method]provider.Adapter{}
	for _, m := range schema.AllMethods() {
		sandbox[m] = f
	}
	sandbox[schema.MethodSelect], sandbox[schema.MethodUSDTDirect] = provider.Own{}, provider.Own{}
	live[schema.MethodSelect], live[schema.MethodBDCard] = provider.Own{}, f
	return provider.NewRegistry(sandbox, live)
}

// Rates is FX for tests.
type Rates map[fx.Pair]fx.Rate

func (r Rates) Rate(p fx.Pair) (fx.Rate, bool) {
	if p.Base == p.Quote {
		return fx.Micros, true
	}
	v, ok := r[p]
	return v, ok
}

// PairUSDBDT is the pair a BDT order of a USD merchant converts by.
var PairUSDBDT = fx.Pair{Base: "USD", Quote: "BDT"}

// USDTRates turns GATEWAY_USDT_RATES' parsed form into the FX pairs
// USDT:<currency> the USDT amounts read.
func USDTRates(m map[string]int64) Rates {
	out := Rates{}
	for cur, micros := range m {
		out[fx.Pair{Base: "USDT", Quote: cur}] = fx.Rate(micros)
	}
	return out
}

// Systems are the fake fiatpsp's payment systems.
func (f *Provider) Systems(context.Context) ([]provider.System, error) {
	return []provider.System{{ID: 12, Name: "card EUR", Currency: "EUR"}, {ID: 7, Name: "card USD", Currency: "USD"},
		{ID: 36, Name: "wallet RUB", Currency: "RUB"}}, nil
}

// Currencies are the fake cryptopsp's: btc has a minimum of 30.00, eth 1.00.
func (f *Provider) Currencies(context.Context) ([]string, error) {
	return []string{"btc", "eth"}, nil
}

func (f *Provider) MinAmount(_ context.Context, fiat, crypto string) (provider.Money, error) {
	switch crypto {
	case "btc":
		return provider.Money{Amount: 30_00, Currency: fiat}, nil
	case "eth":
		return provider.Money{Amount: 1_00, Currency: fiat}, nil
	}
	return provider.Money{}, provider.ErrNotFound
}
