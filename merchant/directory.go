package merchant

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Directory is the per-process cache of accounts on the request path. It
// polls the shared version key and drops everything when it moves, so an
// account change reaches every process within one poll interval (plus one
// Redis read) without a restart.
type Directory struct {
	store    *Store
	log      *slog.Logger
	interval time.Duration

	mu      sync.RWMutex
	version string
	gen     uint64              // bumped by every reset, so a read that raced a reset is not cached
	entries map[string]*Account // a nil value caches "no such merchant"
}

// maxCached bounds the cache so random appids cannot grow it without end.
const maxCached = 100_000

// NewDirectory makes a cache over store; interval is its staleness bound.
func NewDirectory(store *Store, log *slog.Logger, interval time.Duration) *Directory {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	return &Directory{store: store, log: log, interval: interval, entries: map[string]*Account{}}
}

// Lookup returns the account or ErrNotFound.
func (d *Directory) Lookup(ctx context.Context, appid string) (*Account, error) {
	d.mu.RLock()
	a, ok := d.entries[appid]
	gen := d.gen
	d.mu.RUnlock()
	if ok {
		if a == nil {
			return nil, ErrNotFound
		}
		return a, nil
	}
	a, err := d.store.Get(ctx, appid)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	d.mu.Lock()
	if len(d.entries) >= maxCached {
		clear(d.entries)
	}
	if gen == d.gen {
		d.entries[strings.Clone(appid)] = a // appid may alias a request buffer
	}
	d.mu.Unlock()
	return a, err
}

// Run polls the version key until ctx ends, the first time at once.
func (d *Directory) Run(ctx context.Context) {
	d.poll(ctx)
	platform.Every(ctx, d.interval, d.poll)
}

func (d *Directory) poll(ctx context.Context) {
	v, err := d.store.rdb.Get(ctx, schema.MerchantsVersionKey).Result()
	if err != nil && ctx.Err() == nil && !errors.Is(err, redis.Nil) {
		d.log.Warn("merchant cache: read version", "err", err)
		// Without the version we cannot know what changed: serve from Redis.
		d.reset("")
		return
	}
	d.mu.RLock()
	same := v == d.version
	d.mu.RUnlock()
	if !same {
		d.reset(v)
	}
}

func (d *Directory) reset(version string) {
	d.mu.Lock()
	d.version = version
	d.gen++
	clear(d.entries)
	d.mu.Unlock()
}

// AuthQuery is SPEC.md's appid + query key check, shared by every endpoint
// that takes them: 401 when either is wrong, 403 when the account is
// disabled.
func (d *Directory) AuthQuery(ctx context.Context, appid, key string) (*Account, error) {
	if appid == "" || key == "" {
		return nil, platform.Errorf(platform.KindInvalidKey, "appid and key are required")
	}
	a, err := d.Lookup(ctx, appid)
	if errors.Is(err, ErrNotFound) {
		return nil, platform.Errorf(platform.KindInvalidAppID, "appid is not valid")
	}
	if err != nil {
		return nil, err
	}
	if !a.QueryKeyMatches(key, d.store.now()) {
		return nil, platform.Errorf(platform.KindInvalidKey, "key is not valid for this appid")
	}
	if a.Disabled {
		return nil, platform.Errorf(platform.KindMerchantDisabled, "merchant account is disabled")
	}
	return a, nil
}
