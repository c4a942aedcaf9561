package payout

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Accounts is how the merchant API finds and admits a merchant: a
// *merchant.Directory.
type Accounts interface {
	merchant.Lookuper
	AuthQuery(ctx context.Context, appid, key string) (*merchant.Account, error)
}

// APIConfig are the merchant API's default rates (a merchant's own
// override wins): asking is createorder's class, reading the query's.
type APIConfig struct {
	AskLimit, ReadLimit platform.Limit
	// Window is how far a request's signed timestamp may be from our clock.
	// A captured request replayed inside it names its requestId, which
	// the store remembers for longer (at least twice the window), so it
	// answers the payout already made; replayed after it, it is refused.
	Window time.Duration
	Now    func() time.Time
}

// DefaultWindow is APIConfig.Window when none is given.
const DefaultWindow = merchant.DefaultWindow

// API is the signed merchant API of payouts: POST /api/payouts signed as
// createorder (appid, MD5 sign over the sorted parameters with the API
// key), GET /api/payouts admitted as the query API (appid and query key).
type API struct {
	cfg      APIConfig
	store    *Store
	accounts Accounts
	limiter  *platform.Limiter
}

// NewAPI wires the merchant API; a nil limiter applies no limit.
func NewAPI(cfg APIConfig, store *Store, accounts Accounts, limiter *platform.Limiter) (*API, error) {
	if store == nil || accounts == nil {
		return nil, errors.New("payout API: a store and the accounts are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Window == 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.Window < time.Second || 2*cfg.Window > store.cfg.IdempotencyTTL {
		return nil, fmt.Errorf("payout API: timestamp window %v must be at least 1 s and at most half the idempotency lifetime %v", cfg.Window, store.cfg.IdempotencyTTL)
	}
	return &API{cfg: cfg, store: store, accounts: accounts, limiter: limiter}, nil
}

// askParams are POST /api/payouts' required parameters, in the order the
// first missing one is named.
var askParams = []string{"appid", "requestId", "timestamp", "destination", "amount", "currency", "sign"}

// Ask runs createorder's check order (required fields, form, appid,
// enabled, sign_type, sign, rate) and then asks for the payout with the
// merchant's terms in its currency. A destination of another merchant is
// a 404 as a missing one is. The signed requestId is the idempotency key
// (an Idempotency-Key header, when given, must be the same) and the signed
// timestamp must be within the window: without both, a captured request
// could be sent again for a second payout. replayed is true when the
// requestId named a payout before.
func (a *API) Ask(ctx context.Context, p schema.Params, idemKey, source string) (Payout, bool, error) {
	for _, name := range askParams {
		if p[name] == "" {
			return Payout{}, false, platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	acct, err := merchant.AuthenticateSigned(ctx, a.accounts, p, a.cfg.Now())
	if err != nil {
		return Payout{}, false, err
	}
	if err := a.allow(ctx, platform.ClassCreate, acct, acct.CreateLimit, a.cfg.AskLimit); err != nil {
		return Payout{}, false, err
	}
	for name := range p {
		if !askKnown[name] {
			return Payout{}, false, platform.Errorf(platform.KindInvalidParameter, "parameter %q is not known to this call", name)
		}
	}
	if err := merchant.CheckFresh(p["timestamp"], a.cfg.Now(), a.cfg.Window); err != nil {
		return Payout{}, false, err
	}
	if err := merchant.CheckRequestID(p["requestId"]); err != nil {
		return Payout{}, false, err
	}
	if idemKey != "" && idemKey != p["requestId"] {
		return Payout{}, false, platform.Errorf(platform.KindInvalidParameter, "the Idempotency-Key header must be the requestId when both are given")
	}
	amount, err := schema.ParseAmount(p["amount"])
	if err != nil {
		return Payout{}, false, platform.Errorf(platform.KindInvalidParameter, "amount must be a decimal such as 100.00")
	}
	cur := strings.ToUpper(p["currency"])
	if !schema.KnownCurrency(cur) {
		return Payout{}, false, platform.Errorf(platform.KindInvalidParameter, "currency %q is not one we keep balances in", p["currency"])
	}
	return a.store.Request(ctx, Ask{AppID: acct.AppID, Destination: p["destination"], Currency: cur, Amount: amount,
		By: "api", IdempotencyKey: p["requestId"], Limits: LimitsOf(acct.Terms, cur)}, APIEntry(a.cfg.Now(), acct.AppID, source))
}

var askKnown = map[string]bool{"appid": true, "requestId": true, "timestamp": true, "destination": true, "amount": true, "currency": true, "sign": true, "sign_type": true}

// LimitsOf are a merchant's payout terms in cur as Request takes them.
func LimitsOf(t merchant.Terms, cur string) Limits {
	p := t.PayoutsFor(cur)
	return Limits{Min: p.Min, Fee: p.Fee, AutoApproveBelow: p.AutoApproveBelow}
}

// APIEntry is the audit entry of a payout asked for through the API: the
// merchant itself, by its API key (no console user), from source (the
// client's address).
func APIEntry(at time.Time, appid, source string) audit.Entry {
	return audit.Entry{At: at, Realm: audit.RealmMerchant, ActorID: "api", Action: ActionRequest, AppID: appid, Source: source}
}

// Admit is the query API's admission (appid and query key, then the query
// rate) of a payouts read.
func (a *API) Admit(ctx context.Context, appid, key string) (*merchant.Account, error) {
	acct, err := a.accounts.AuthQuery(ctx, appid, key)
	if err != nil {
		return nil, err
	}
	if err := a.allow(ctx, platform.ClassQuery, acct, acct.QueryLimit, a.cfg.ReadLimit); err != nil {
		return nil, err
	}
	return acct, nil
}

// Read is payout id of acct (404 for another merchant's).
func (a *API) Read(ctx context.Context, acct *merchant.Account, id string) (Payout, error) {
	return a.store.Get(ctx, acct.AppID, id)
}

// ListPage is a page of acct's payouts, newest first; before is the
// previous page's NextCursor.
func (a *API) ListPage(ctx context.Context, acct *merchant.Account, before, limit string) ([]Payout, string, error) {
	b, n, err := platform.CursorPage(before, limit)
	if err != nil {
		return nil, "", err
	}
	ps, err := a.store.List(ctx, acct.AppID, b, n)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(ps) == n {
		next = strconv.FormatInt(ps[len(ps)-1].Created.UnixMilli(), 10)
	}
	return ps, next, nil
}

func (a *API) allow(ctx context.Context, class string, acct *merchant.Account, override *platform.Limit, def platform.Limit) error {
	if a.limiter == nil {
		return nil
	}
	return a.limiter.Allow(ctx, class, acct.AppID, merchant.Limit(override, def))
}
