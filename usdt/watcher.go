package usdt

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Watcher is a process's copy of the networks, read on the request path
// without a Redis round trip. It polls the version key and reloads when it
// moves, so a `gateway usdt config` change reaches every process within an
// interval (merchant.Directory's scheme).
type Watcher struct {
	store    *Store
	log      *slog.Logger
	interval time.Duration

	mu      sync.RWMutex
	version string
	loaded  bool
	nets    []Network
}

// NewWatcher watches store; interval (default 250 ms) bounds staleness.
func NewWatcher(store *Store, log *slog.Logger, interval time.Duration) *Watcher {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	return &Watcher{store: store, log: log, interval: interval}
}

// Load reads the networks now, for a process to call before it serves.
func (w *Watcher) Load(ctx context.Context) error { return w.poll(ctx) }

// Run polls until ctx ends, the first time at once.
func (w *Watcher) Run(ctx context.Context) {
	each := func(ctx context.Context) {
		if err := w.poll(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("usdt networks: reload", "err", err)
		}
	}
	each(ctx)
	platform.Every(ctx, w.interval, each)
}

// poll reloads when the version moved. The version is read before the
// networks: a change landing in between is loaded now and seen again on
// the next poll, never missed. A failed read keeps the last copy: payers
// keep seeing the networks rather than none.
func (w *Watcher) poll(ctx context.Context) error {
	v, err := w.store.rdb.Get(ctx, schema.USDTConfigVersionKey).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	w.mu.RLock()
	same := w.loaded && v == w.version
	w.mu.RUnlock()
	if same {
		return nil
	}
	nets, err := w.store.List(ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.version, w.loaded, w.nets = v, true, nets
	w.mu.Unlock()
	return nil
}

// Networks are every network, live ones first.
func (w *Watcher) Networks() []Network {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return slices.Clone(w.nets)
}

// For are the networks offered to sandbox or live orders, in the order
// payers see them.
func (w *Watcher) For(sandbox bool) []Network {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var out []Network
	for _, n := range w.nets {
		if n.Sandbox == sandbox {
			out = append(out, n)
		}
	}
	return out
}

// Network is the live network name.
func (w *Watcher) Network(name string) (Network, bool) { return w.Lookup(name, false) }

// Lookup is network name as configured for sandbox or live orders: what a
// reviewer checks an order's transfer against (order.Sandbox, order.Network).
func (w *Watcher) Lookup(name string, sandbox bool) (Network, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, n := range w.nets {
		if n.Name == name && n.Sandbox == sandbox {
			return n, true
		}
	}
	return Network{}, false
}
