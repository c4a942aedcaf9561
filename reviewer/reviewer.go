package reviewer

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Reviewer is the USDT reviewer role of one process.
type Reviewer struct {
	cfg  Config
	d    Deps
	q    *queue
	m    *metrics
	log  *slog.Logger
	id   string        // who decided, in the order's history: host-pid-random
	sem  chan struct{} // reviews in flight, at most Batch
	next int           // the shard the next round starts at (the loop's own)
	wake chan struct{} // a review ended: a slot is free
}

// New checks cfg and d and prepares a reviewer; Run starts it.
func New(cfg Config, d Deps, reg prometheus.Registerer, log *slog.Logger) (*Reviewer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("reviewer config: %w", err)
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	if reg == nil || log == nil {
		return nil, fmt.Errorf("reviewer: registry and logger are required")
	}
	m, err := newMetrics(reg, d.Waiting != nil)
	if err != nil {
		return nil, err
	}
	id := reviewerID()
	return &Reviewer{cfg: cfg, d: d, q: newQueue(d.Redis), m: m, log: log.With("role", "reviewer", "reviewer", id), id: id,
		sem: make(chan struct{}, cfg.Batch), wake: make(chan struct{}, 1)}, nil
}

// ID is the name this reviewer signs its decisions with.
func (r *Reviewer) ID() string { return r.id }

// Run reviews until ctx ends, then waits for the reviews in flight: each is
// bound by the per-call Timeout and runs on a context of its own, so a
// graceful stop finishes what it claimed instead of leaving it to a lease.
func (r *Reviewer) Run(ctx context.Context) error {
	r.log.Info("reviewer running", "batch", r.cfg.Batch, "lease", r.cfg.Lease.String(), "window", r.cfg.Window.String())
	var wg sync.WaitGroup
	if r.d.Waiting != nil {
		wg.Go(func() {
			r.countWaiting(ctx)
			platform.Every(ctx, r.cfg.WaitingInterval, r.countWaiting)
		})
	}
	r.loop(ctx, &wg)
	wg.Wait()
	r.log.Info("reviewer stopped")
	return nil
}

// loop claims reviews whenever slots are free: at once after a round that
// found work, when a review ends, or every PollInterval.
func (r *Reviewer) loop(ctx context.Context, wg *sync.WaitGroup) {
	t := time.NewTicker(r.cfg.PollInterval)
	defer t.Stop()
	for ctx.Err() == nil {
		if r.round(ctx, wg) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
		case <-r.wake:
		case <-t.C:
		}
	}
}

// round visits every shard once and claims into the free slots. It starts
// after the last shard it took reviews from, so the shards with work due
// take turns: a shard with a backlog cannot keep another's reviews
// waiting. It returns how many reviews it started.
func (r *Reviewer) round(ctx context.Context, wg *sync.WaitGroup) int {
	shards := schema.AllShards()
	start, started := r.next, 0
	for i := range shards {
		free := cap(r.sem) - len(r.sem) // only this loop fills sem
		if free <= 0 || ctx.Err() != nil {
			break
		}
		at := (start + i) % len(shards)
		s := shards[at]
		claims, err := r.q.take(ctx, s, free, r.cfg.Lease.Milliseconds())
		if err != nil {
			if ctx.Err() == nil {
				r.m.errors.WithLabelValues(backendRedis).Inc()
				r.log.Warn("claim usdt reviews failed; retried", "err", err)
			}
			continue
		}
		if len(claims) > 0 {
			r.next = at + 1
		}
		for _, c := range claims {
			r.sem <- struct{}{}
			started++
			wg.Go(func() {
				defer r.release()
				r.review(context.WithoutCancel(ctx), c)
			})
		}
	}
	return started
}

func (r *Reviewer) release() {
	<-r.sem
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// countWaiting refreshes the gauge of reviews waiting for an administrator.
func (r *Reviewer) countWaiting(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	n, err := r.d.Waiting(cctx)
	if err != nil {
		if ctx.Err() == nil {
			r.m.errors.WithLabelValues(backendOrders).Inc()
			r.log.Warn("count usdt reviews waiting failed", "err", err)
		}
		return
	}
	r.m.waiting.Set(float64(n))
}

// reviewerID is host-pid-random: unique per process, and telling a
// restarted process from the one before it with the same pid.
func reviewerID() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "reviewer"
	}
	return h + "-" + strconv.Itoa(os.Getpid()) + "-" + rand.Text()[:6]
}
