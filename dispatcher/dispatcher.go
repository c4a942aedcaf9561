package dispatcher

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ErrInFlight is a resend asked for while an attempt of the order runs; its
// outcome decides what comes next.
var ErrInFlight = errors.New("a webhook attempt of this order is in flight")

// Dispatcher is the webhook role of one process.
type Dispatcher struct {
	cfg    Config
	rdb    redis.UniversalClient
	store  *store
	keys   KeyLookup
	client *fasthttp.Client
	m      *metrics
	c      *platform.Consumer
	log    *slog.Logger
	slots  *slots
	ev     *EventDeliveries
	wake   chan struct{}
	nonce  string        // tells this process's leases from an earlier one with the same pid
	claims atomic.Uint64 // numbers claim calls, for lease tokens
}

// New checks cfg and prepares a dispatcher; Run starts it.
func New(cfg Config, rdb redis.UniversalClient, keys KeyLookup, reg prometheus.Registerer, log *slog.Logger) (*Dispatcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("dispatcher config: %w", err)
	}
	if rdb == nil || keys == nil || reg == nil || log == nil {
		return nil, errors.New("dispatcher: redis, keys, registry and logger are required")
	}
	if cfg.Consumer == "" {
		cfg.Consumer = platform.ConsumerName()
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{
		cfg: cfg, rdb: rdb, store: newStore(rdb, cfg), keys: keys, client: newHTTPClient(cfg), m: m,
		log: log.With("role", "dispatcher"), slots: newSlots(cfg.Concurrency, cfg.PerHost),
		wake: make(chan struct{}, 1), nonce: rand.Text()[:8],
	}
	em, err := newEventMetrics(reg)
	if err != nil {
		return nil, err
	}
	d.ev = newEventDeliveries(cfg, rdb, d.store, nil, em, d.log, d.poke)
	if d.c, err = d.newConsumer(); err != nil {
		return nil, fmt.Errorf("dispatcher consumer: %w", err)
	}
	return d, nil
}

// Run consumes the event streams and delivers webhooks until ctx ends, then
// waits for the attempts in flight to finish and be recorded (each is bound
// by Timeout), so a graceful stop loses nothing and leaves no lease behind.
func (d *Dispatcher) Run(ctx context.Context) error {
	if err := d.c.EnsureGroups(ctx); err != nil {
		return err
	}
	d.log.Info("dispatcher running", "consumer", d.cfg.Consumer, "concurrency", d.cfg.Concurrency,
		"per_host", d.cfg.PerHost, "timeout", d.cfg.Timeout.String(), "attempts", len(d.cfg.Schedule)+1,
		"allow_private", d.cfg.AllowPrivate)
	var wg sync.WaitGroup
	wg.Go(func() { d.consume(ctx) })
	wg.Go(func() { d.reclaim(ctx) })
	d.deliver(ctx)
	wg.Wait()
	// Events the readers read ahead are scheduled and acknowledged now,
	// not left pending for another process to take over after ClaimIdle.
	if left := d.c.Stop(); len(left) > 0 {
		d.handle(context.WithoutCancel(ctx), left)
	}
	d.log.Info("dispatcher stopped")
	return nil
}

// Log is the order's attempt log, oldest first; empty when it has none
// (Webhooks.Log).
func (d *Dispatcher) Log(ctx context.Context, paymentID string) ([]schema.WebhookAttempt, error) {
	return d.webhooks().Log(ctx, paymentID, "")
}

// State is the order's delivery, or ErrNoDelivery (Webhooks.State).
func (d *Dispatcher) State(ctx context.Context, paymentID string) (*Delivery, error) {
	return d.webhooks().State(ctx, paymentID, "")
}

// webhooks reads and queues over this dispatcher's store.
func (d *Dispatcher) webhooks() *Webhooks { return &Webhooks{store: d.store, now: time.Now} }

// poke wakes the delivery loop without blocking: a slot was freed or work
// was scheduled.
func (d *Dispatcher) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// tokenPrefix makes lease tokens unique per claim call across processes.
func (d *Dispatcher) tokenPrefix() string {
	return d.cfg.Consumer + ":" + d.nonce + ":" + strconv.FormatUint(d.claims.Add(1), 10) + ":"
}
