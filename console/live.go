package console

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Hub is the live orders feed of one process: one reader per event stream
// (shard), started when the first console opens the feed and stopped
// when the last closes it, fanning each order event out to the open
// consoles of its merchant. A hundred open consoles cost the event streams
// the same XREADs as one, and the create path nothing: the reader only
// reads what the scripts already write.
type Hub struct {
	rdb     redis.UniversalClient
	streams []string
	log     *slog.Logger
	every   time.Duration // how often the streams are polled while anyone listens

	mu    sync.Mutex
	subs  map[string]map[*Sub]struct{} // by appid
	n     int
	wake  chan struct{}
	done  bool
	reads prometheus.Counter
	sent  prometheus.Counter
	drops prometheus.Counter
	open  prometheus.Gauge
}

// Sub is one open feed: the events of its merchant's orders. C is closed
// when the hub stops.
type Sub struct {
	appid string
	C     chan LiveOrder
	lost  bool // events were dropped: the page should reload its table
}

// LiveOrder is what the orders page needs of a new or changed order.
type LiveOrder struct {
	ID            string `json:"id"`
	ClientOrderID string `json:"clientOrderId"`
	Amount        string `json:"amount"`
	Currency      string `json:"currency"`
	Method        string `json:"method"`
	Status        string `json:"status"`
	Created       string `json:"created"`
	Event         string `json:"event"`
	Sandbox       bool   `json:"sandbox"`
}

// NewHub builds the feed over the order event streams of every shard.
func NewHub(rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*Hub, error) {
	h := &Hub{rdb: rdb, log: log, every: 500 * time.Millisecond, subs: map[string]map[*Sub]struct{}{}, wake: make(chan struct{})}
	for _, s := range schema.AllShards() {
		h.streams = append(h.streams, schema.EventsKey(s))
	}
	h.reads = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_reads_total", Help: "Polls of the event streams by the console's live feed (all consoles share them)."})
	h.sent = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_events_total", Help: "Order events sent to open consoles."})
	h.drops = prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_console_live_dropped_total", Help: "Order events an open console was too slow to take."})
	h.open = prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_console_live_open", Help: "Open live feeds."})
	for _, c := range []prometheus.Collector{h.reads, h.sent, h.drops, h.open} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Subscribe opens a feed of appid's orders; nil after the hub stopped.
func (h *Hub) Subscribe(appid string) *Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return nil
	}
	s := &Sub{appid: appid, C: make(chan LiveOrder, 64)}
	if h.subs[appid] == nil {
		h.subs[appid] = map[*Sub]struct{}{}
	}
	h.subs[appid][s] = struct{}{}
	h.n++
	h.open.Inc()
	if h.n == 1 {
		close(h.wake) // the readers start
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
// feed is closed. Each poll is one pipeline of non-blocking XREADs, one
// per shard's stream (grouped per node on Redis Cluster): no connection
// is held blocking, so the pool the create path shares is never short.
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
			if err := h.poll(ctx, last); err != nil && ctx.Err() == nil {
				h.log.Warn("console live feed read", "err", err)
			}
			sleep(ctx, h.every)
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
		return nil, err
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

// poll reads what every stream got since last and fans it out.
func (h *Hub) poll(ctx context.Context, last map[string]string) error {
	cmds := make([]*redis.XStreamSliceCmd, len(h.streams))
	_, err := h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range h.streams {
			cmds[i] = p.XRead(ctx, &redis.XReadArgs{Streams: []string{st, last[st]}, Count: 500, Block: -1})
		}
		return nil
	})
	h.reads.Inc()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for _, cmd := range cmds {
		res, _ := cmd.Result()
		for _, st := range res {
			for _, m := range st.Messages {
				last[st.Stream] = m.ID
				h.fanOut(m)
			}
		}
	}
	return nil
}

func (h *Hub) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	for _, subs := range h.subs {
		for s := range subs {
			close(s.C)
		}
	}
	h.subs = map[string]map[*Sub]struct{}{}
	h.n = 0
}

func (h *Hub) listening() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n > 0
}

// fanOut sends one event to its merchant's feeds; a feed whose buffer is
// full loses it and is marked, never blocking the others.
func (h *Hub) fanOut(m redis.XMessage) {
	ev, err := schema.DecodeEvent(m.ID, m.Values)
	if err != nil {
		return // the projector dead-letters what it cannot read; the feed just skips it
	}
	o := ev.Order
	lo := LiveOrder{ID: o.ID, ClientOrderID: o.ClientOrderID, Amount: o.Amount.String(), Currency: o.Currency, Method: string(o.Method),
		Status: o.Status.String(), Created: o.CreatedAt.UTC().Format("2006-01-02 15:04:05"), Event: string(ev.Type), Sandbox: o.Sandbox}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[o.AppID] {
		select {
		case s.C <- lo:
			h.sent.Inc()
		default:
			s.lost = true
			h.drops.Inc()
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
