package fanout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Scheduler is the webhook engine: it schedules ev for each of eps (the
// merchant's endpoints that take it), keeping each endpoint's events of one
// object in order. It is idempotent: a delivery id (event id and endpoint
// id) that exists is not scheduled again.
type Scheduler interface {
	ScheduleEvent(ctx context.Context, appid string, ev events.Event, object string, eps []events.Endpoint) error
}

// Endpoints reads merchants' webhook endpoints (an *events.Store).
type Endpoints interface {
	ListMany(ctx context.Context, appids []string) (map[string][]events.Endpoint, error)
}

// Balances reads a merchant's balance in one currency (a *journal.Journal).
type Balances interface {
	Balance(ctx context.Context, appid, cur string) (journal.Balance, error)
}

// streamKind is what a stream records.
type streamKind int

const (
	kindOrders streamKind = iota
	kindPayouts
	kindJournal
)

// FanOut is the events consumer of one process.
type FanOut struct {
	cfg     Config
	rdb     redis.UniversalClient
	eps     Endpoints
	bals    Balances
	sched   Scheduler
	c       *platform.Consumer
	kinds   map[string]streamKind
	fresh   []string // the streams whose group starts at their end (journals, payouts)
	m       *metrics
	log     *slog.Logger
	inBatch sync.Mutex // the reader and the reclaimer hand batches in turn
	holds   *holds     // under inBatch
}

// New checks cfg and prepares a fan-out; Run starts it.
func New(cfg Config, rdb redis.UniversalClient, eps Endpoints, bals Balances, sched Scheduler, reg prometheus.Registerer, log *slog.Logger) (*FanOut, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || eps == nil || bals == nil || sched == nil || reg == nil || log == nil {
		return nil, errors.New("events fan-out: redis, endpoints, balances, scheduler, registry and logger are required")
	}
	if cfg.Consumer == "" {
		cfg.Consumer = platform.ConsumerName()
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	f := &FanOut{cfg: cfg, rdb: rdb, eps: eps, bals: bals, sched: sched, m: m, kinds: map[string]streamKind{},
		log: log.With("role", "dispatcher", "part", "events"), holds: newHolds(3 * cfg.ClaimIdle)}
	var streams []string
	for _, s := range schema.AllShards() {
		f.kinds[schema.EventsKey(s)] = kindOrders
		f.kinds[schema.PayoutEventsKey(s)] = kindPayouts
		f.kinds[schema.JournalKey(s)] = kindJournal
		streams = append(streams, schema.EventsKey(s), schema.PayoutEventsKey(s), schema.JournalKey(s))
		f.fresh = append(f.fresh, schema.PayoutEventsKey(s), schema.JournalKey(s))
	}
	f.c, err = platform.NewConsumer(rdb, platform.ConsumerConfig{Group: schema.GroupEvents, Name: cfg.Consumer,
		Streams: streams, Count: cfg.Count, Block: cfg.Block, ClaimIdle: cfg.ClaimIdle,
		OnError: func(string, error) { m.redisErrs.Inc() }}, log)
	if err != nil {
		return nil, fmt.Errorf("events fan-out consumer: %w", err)
	}
	return f, nil
}

// EnsureGroups creates the group where it is missing: on the order streams
// from their start (as every group there: the projector trims below what
// it has read), on the journals and the payouts' streams from their end,
// since no merchant had an endpoint to tell of what they hold from before
// (a journal is never trimmed: reading it from its start would derive a
// year of settlements for nobody).
func (f *FanOut) EnsureGroups(ctx context.Context) error {
	for _, s := range f.fresh {
		err := f.rdb.XGroupCreateMkStream(ctx, s, schema.GroupEvents, "$").Err()
		if err != nil && !redis.HasErrorPrefix(err, "BUSYGROUP") {
			return fmt.Errorf("create consumer group %s on %s: %w", schema.GroupEvents, s, err)
		}
	}
	return f.c.EnsureGroups(ctx)
}

// Run consumes until ctx ends; what the readers read ahead is handled
// before it returns, so a graceful stop leaves nothing pending.
func (f *FanOut) Run(ctx context.Context) error {
	if err := f.EnsureGroups(ctx); err != nil {
		return err
	}
	f.log.Info("events fan-out running", "consumer", f.cfg.Consumer)
	var wg sync.WaitGroup
	wg.Go(func() { f.consume(ctx) })
	wg.Go(func() { f.reclaim(ctx) })
	wg.Wait()
	if left := f.c.Stop(); len(left) > 0 {
		f.handle(context.WithoutCancel(ctx), left)
	}
	f.log.Info("events fan-out stopped")
	return nil
}

func (f *FanOut) consume(ctx context.Context) {
	f.c.Start(ctx)
	for ctx.Err() == nil {
		if read := f.c.Next(ctx, f.cfg.Block, f.cfg.Count); len(read) > 0 {
			f.handle(ctx, read)
		}
	}
}

// reclaim reads again the entries left pending ClaimIdle: a scheduling
// that failed, or a process that died holding them.
func (f *FanOut) reclaim(ctx context.Context) {
	platform.Every(ctx, max(f.cfg.ClaimIdle/2, 10*time.Millisecond), func(ctx context.Context) {
		f.inBatch.Lock()
		f.holds.sweep()
		f.inBatch.Unlock()
		f.c.Claim(ctx, f.cfg.Count, func(st redis.XStream) bool {
			f.log.Info("reading unacknowledged entries again", "stream", st.Stream, "count", len(st.Messages))
			f.handle(ctx, []redis.XStream{st})
			return true
		})
	})
}
