package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

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

// APIConfig are the endpoints API's default rates (a merchant's own
// override wins: changing is createorder's class, reading the query's)
// and the signed timestamp's window.
type APIConfig struct {
	ChangeLimit, ReadLimit platform.Limit
	// Window is how far a change's signed timestamp may be from our clock;
	// its requestId is remembered for twice as long.
	Window time.Duration
	Now    func() time.Time
}

// API is the signed merchant API of webhook endpoints. Every change is
// signed as createorder (appid, MD5 sign over the sorted parameters with
// the API key) and carries a requestId and a timestamp, as a payout does:
// an endpoint's URL decides where the merchant's events go, so a captured
// change must not be made again. Reads are admitted as the query API
// (appid and query key) and never carry a secret.
type API struct {
	cfg        APIConfig
	store      *Store
	deliveries EndpointDeliveries // nil: none on this node
	accounts   Accounts
	limiter    *platform.Limiter
	rdb        redis.UniversalClient
}

// NewAPI wires the endpoints API; a nil limiter applies no limit, nil
// deliveries answers their calls 503.
func NewAPI(cfg APIConfig, store *Store, deliveries EndpointDeliveries, accounts Accounts, limiter *platform.Limiter) (*API, error) {
	if store == nil || accounts == nil {
		return nil, errors.New("webhook endpoints API: a store and the accounts are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Window == 0 {
		cfg.Window = merchant.DefaultWindow
	}
	if cfg.Window < time.Second || cfg.Window > time.Hour {
		return nil, fmt.Errorf("webhook endpoints API: timestamp window %v: 1 s to 1 h", cfg.Window)
	}
	return &API{cfg: cfg, store: store, deliveries: deliveries, accounts: accounts, limiter: limiter, rdb: store.rdb}, nil
}

// Call is what one change takes besides appid, requestId, timestamp and
// sign (and sign_type): Required, named in order when missing, and
// Optional; any other parameter is refused.
type Call struct{ Required, Optional []string }

func (c Call) required() []string {
	return append(append([]string{"appid", "requestId", "timestamp"}, c.Required...), "sign")
}

// admitChange runs createorder's check order (required fields, form,
// appid, enabled, sign_type, sign, rate), refuses a parameter the call
// does not know, a stale timestamp and a requestId seen before, and
// returns the merchant and its audit entry. release forgets the requestId
// again when the change is then refused, so a corrected retry may use it.
func (a *API) admitChange(ctx context.Context, p schema.Params, call Call, source string) (*merchant.Account, audit.Entry, func(), error) {
	for _, name := range call.required() {
		if p[name] == "" {
			return nil, audit.Entry{}, nil, platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	now := a.cfg.Now()
	acct, err := merchant.AuthenticateSigned(ctx, a.accounts, p, now)
	if err != nil {
		return nil, audit.Entry{}, nil, err
	}
	if err := a.allow(ctx, platform.ClassCreate, acct, acct.CreateLimit, a.cfg.ChangeLimit); err != nil {
		return nil, audit.Entry{}, nil, err
	}
	if err := onlyKnown(p, call); err != nil {
		return nil, audit.Entry{}, nil, err
	}
	if err := merchant.CheckFresh(p["timestamp"], now, a.cfg.Window); err != nil {
		return nil, audit.Entry{}, nil, err
	}
	if err := merchant.CheckRequestID(p["requestId"]); err != nil {
		return nil, audit.Entry{}, nil, err
	}
	key := schema.EndpointRequestKey(acct.AppID, p["requestId"])
	fresh, err := a.rdb.SetNX(ctx, key, now.UTC().Format(time.RFC3339), 2*a.cfg.Window).Result()
	if err != nil {
		return nil, audit.Entry{}, nil, fmt.Errorf("remember requestId: %w", err)
	}
	if !fresh {
		return nil, audit.Entry{}, nil, platform.Errorf(platform.KindConflict, "requestId %s was used already: sign each change with a new one", p["requestId"])
	}
	release := func() { _ = a.rdb.Del(context.WithoutCancel(ctx), key).Err() }
	e := audit.Entry{At: now, Realm: audit.RealmMerchant, ActorID: "api", AppID: acct.AppID, Source: source}
	return acct, e, release, nil
}

func onlyKnown(p schema.Params, call Call) error {
	known := append(call.required(), call.Optional...)
	for name := range p {
		if name != "sign_type" && !slices.Contains(known, name) {
			return platform.Errorf(platform.KindInvalidParameter, "parameter %q is not known to this call", name)
		}
	}
	return nil
}

// Admit is the query API's admission (appid and query key, then the query
// rate) of an endpoints read.
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

func (a *API) allow(ctx context.Context, class string, acct *merchant.Account, override *platform.Limit, def platform.Limit) error {
	if a.limiter == nil {
		return nil
	}
	return a.limiter.Allow(ctx, class, acct.AppID, merchant.Limit(override, def))
}

// settle forgets the requestId of a change that was refused.
func settle[T any](v T, err error, release func()) (T, error) {
	if err != nil {
		release()
	}
	return v, err
}
