package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Hub is the live orders feed of one process: one reader of the event
// streams (every shard's), started when the first console opens the feed
// and stopped when the last closes it. Each poll gathers, per merchant
// with an open console, the latest state of each order that changed and
// renders that as one message, once; every feed of the merchant is handed
// the same bytes. The cost thus grows with the events and the feeds, never
// with events × feeds: 100 consoles of a merchant creating thousands of
// orders a second cost one rendering and 100 writes per poll. The create
// path pays nothing: the reader only reads what the scripts already write.
type Hub struct {
	cfg      HubConfig
	rdb      redis.UniversalClient
	sessions Sessions
	streams  []string
	log      *slog.Logger

	mu      sync.Mutex
	subs    map[string]map[*Sub]struct{} // by appid
	n       int
	wake    chan struct{}
	done    bool
	stopped chan struct{} // closed when the hub stops: every feed ends

	reads    prometheus.Counter
	events   prometheus.Counter
	messages prometheus.Counter
	sent     prometheus.Counter
	drops    prometheus.Counter
	behind   prometheus.Counter
	open     prometheus.Gauge
}

// Sessions says which console sessions still stand, without marking them
// used (access.Accounts.Alive: one pipeline of EXISTS).
type Sessions interface {
	Alive(ctx context.Context, ids []string) ([]bool, error)
}

// HubConfig is the live feed's rhythm and bounds.
type HubConfig struct {
	// Every is how often the streams are polled while anyone listens
	// (default 500 ms): a person watching a table sees a change within it.
	Every time.Duration
	// Count bounds each stream's entries one poll reads (default 64): a
	// poll reads each stream's newest Count entries since the last poll,
	// so the feed costs at most 16 × Count entries a poll however fast
	// orders come (each entry read costs the gateway ~7 µs; reading every
	// event at 9,000 creates/s cost 5 % of the creates' throughput with
	// 100 open consoles, BENCHMARKS.md). Up to 2,048 events a second
	// (16 × 64 per 500 ms) every change is shown; past that, a stream that
	// had more than Count new entries is skipped to its newest and every
	// open page is told to reload (it shows 25 rows: it could not show
	// them all anyway).
	Count int64
	// MaxOrders caps the orders one message carries: what the orders page
	// shows (its page size, default 25). More changed orders than that in
	// one poll send the latest MaxOrders and tell the page to reload.
	MaxOrders int
}

// HubDefaults is the feed's rhythm and bounds unless told otherwise.
func HubDefaults() HubConfig {
	return HubConfig{Every: 500 * time.Millisecond, Count: 64, MaxOrders: 25}
}

// withDefaults fills the zero fields from HubDefaults.
func (c HubConfig) withDefaults() HubConfig {
	d := HubDefaults()
	c.Every = cmp.Or(c.Every, d.Every)
	c.Count = cmp.Or(c.Count, d.Count)
	c.MaxOrders = cmp.Or(c.MaxOrders, d.MaxOrders)
	return c
}

// Validate refuses bounds that cannot work; it changes nothing.
func (c HubConfig) Validate() error {
	if c.Every < 0 || c.Count < 1 || c.MaxOrders < 1 {
		return fmt.Errorf("console live feed: every %v, count %d, max orders %d: want every ≥ 0, count and max orders ≥ 1", c.Every, c.Count, c.MaxOrders)
	}
	return nil
}

// NewHub builds the feed over the order event streams of every shard;
// sessions ends each feed with the console session it was opened in.
func NewHub(cfg HubConfig, rdb redis.UniversalClient, sessions Sessions, reg prometheus.Registerer, log *slog.Logger) (*Hub, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if sessions == nil {
		return nil, errors.New("console live feed: a session check is required")
	}
	h := &Hub{cfg: cfg, rdb: rdb, sessions: sessions, log: log, subs: map[string]map[*Sub]struct{}{}, wake: make(chan struct{}), stopped: make(chan struct{})}
	for _, s := range schema.AllShards() {
		h.streams = append(h.streams, schema.EventsKey(s))
	}
	h.reads = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_reads_total", Help: "Polls of the event streams by the console's live feed (all consoles share them)."})
	h.events = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_events_total", Help: "Order events of merchants with an open console, read once by the live feed whatever the number of consoles."})
	h.messages = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_messages_total", Help: "Live feed messages rendered: one per merchant with changes per poll, shared by all its consoles."})
	h.sent = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_sent_total", Help: "Live feed messages handed to open consoles."})
	h.drops = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_dropped_total", Help: "Live feed messages an open console was too slow to take (its next one tells the page to reload)."})
	h.behind = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_behind_total", Help: "Polls that found more than Count new entries in a stream and skipped to its newest: the open pages were told to reload."})
	h.open = prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_console_live_open", Help: "Open live feeds."})
	for _, c := range []prometheus.Collector{h.reads, h.events, h.messages, h.sent, h.drops, h.behind, h.open} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("console live feed metrics: %w", err)
		}
	}
	return h, nil
}

// Subscribe opens a feed of appid's orders for console session session;
// nil after the hub stopped. The feed ends when the session does.
func (h *Hub) Subscribe(appid, session string) *Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return nil
	}
	s := newSub(appid, session, h.stopped)
	if h.subs[appid] == nil {
		h.subs[appid] = map[*Sub]struct{}{}
	}
	h.subs[appid][s] = struct{}{}
	h.n++
	h.open.Inc()
	if h.n == 1 {
		close(h.wake) // the reader starts
	}
	return s
}

// Unsubscribe closes a feed.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s.appid][s]; !ok {
		return
	}
	delete(h.subs[s.appid], s)
	if len(h.subs[s.appid]) == 0 {
		delete(h.subs, s.appid)
	}
	h.n--
	h.open.Dec()
	if h.n == 0 {
		h.wake = make(chan struct{})
	}
}

// waiting returns a channel closed once someone listens.
func (h *Hub) waiting() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.wake
}

// Run polls the streams while anyone listens, until ctx ends; then every
// feed ends. Each poll is one pipeline of non-blocking XREADs, one per
// shard's stream (grouped per node on Redis Cluster): no connection is
// held blocking, so the pool the create path shares is never short.
func (h *Hub) Run(ctx context.Context) {
	defer h.stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.waiting():
		}
		last, err := h.tails(ctx)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Warn("console live feed: read the streams' ends", "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		for ctx.Err() == nil && h.listening() {
			if _, err := h.poll(ctx, last); err != nil && ctx.Err() == nil {
				h.log.Warn("console live feed read", "err", err)
			}
			sleep(ctx, h.cfg.Every)
		}
	}
}

// tails are the streams' last ids: the feed starts after them.
func (h *Hub) tails(ctx context.Context) (map[string]string, error) {
	cmds := make([]*redis.XMessageSliceCmd, len(h.streams))
	_, err := h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range h.streams {
			cmds[i] = p.XRevRangeN(ctx, st, "+", "-", 1)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read the event streams' ends: %w", err)
	}
	last := map[string]string{}
	for i, st := range h.streams {
		last[st] = "0-0"
		if msgs, _ := cmds[i].Result(); len(msgs) > 0 {
			last[st] = msgs[0].ID
		}
	}
	return last, nil
}

func (h *Hub) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	close(h.stopped)
	h.subs = map[string]map[*Sub]struct{}{}
	h.n = 0
}

func (h *Hub) listening() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n > 0
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
