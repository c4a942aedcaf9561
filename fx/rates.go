package fx

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/platform"
)

// Rates is every process's copy of the current rates, refreshed from the
// Store by Run; lookups never touch Redis.
type Rates struct {
	store *Store
	every time.Duration
	log   *slog.Logger
	cur   atomic.Pointer[map[Pair]Rate]
}

// NewRates makes a copy refreshed every interval (a second by default).
func NewRates(store *Store, every time.Duration, log *slog.Logger) *Rates {
	if every <= 0 {
		every = time.Second
	}
	r := &Rates{store: store, every: every, log: log}
	empty := map[Pair]Rate{}
	r.cur.Store(&empty)
	return r
}

// Load reads the rates now; the process calls it once before serving.
func (r *Rates) Load(ctx context.Context) error {
	m, _, err := r.store.Current(ctx)
	if err != nil {
		return err
	}
	r.cur.Store(&m)
	return nil
}

// Run refreshes until ctx ends; a failed refresh keeps the last copy.
func (r *Rates) Run(ctx context.Context) {
	platform.Every(ctx, r.every, func(ctx context.Context) {
		if err := r.Load(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("refresh fx rates", "err", err)
		}
	})
}

// Rate is the current rate of p; a currency to itself is 1.
func (r *Rates) Rate(p Pair) (Rate, bool) {
	if p.Base == p.Quote {
		return Micros, true
	}
	v, ok := (*r.cur.Load())[p]
	return v, ok
}
