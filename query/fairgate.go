package query

import (
	"context"
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
)

// FairGate bounds the ClickHouse queries the query side runs at once and
// shares them fairly between merchants: each merchant waits in a queue of
// its own, and a freed slot goes to the next merchant in turn that has a
// waiter, not to whoever asked first. One merchant's flood of listings then
// costs another merchant at most one turn per slot instead of a place behind
// the whole flood (issue 25: 21 ms became 750 ms before). A queue longer
// than PerMerchant is refused with 429 at once, so a flood cannot grow
// memory or latency without bound.
type FairGate struct {
	mu      sync.Mutex
	free    int
	perApp  int
	queues  map[string][]chan struct{}
	ring    []string // merchants with waiters, in turn order
	waiting prometheus.Gauge
	refused prometheus.Counter
}

// FairGateConfig sizes the gate.
type FairGateConfig struct {
	Concurrency int // queries to ClickHouse at once (default 8)
	PerMerchant int // waiters per merchant before 429 (default 64)
}

// Validate fills defaults and refuses nonsense.
func (c *FairGateConfig) Validate() error {
	if c.Concurrency == 0 {
		c.Concurrency = 8
	}
	if c.PerMerchant == 0 {
		c.PerMerchant = 64
	}
	if c.Concurrency < 1 || c.PerMerchant < 1 {
		return errors.New("query: read concurrency and per-merchant queue must be positive")
	}
	return nil
}

// NewFairGate makes a gate and registers its gauges.
func NewFairGate(cfg FairGateConfig, reg prometheus.Registerer) (*FairGate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &FairGate{free: cfg.Concurrency, perApp: cfg.PerMerchant, queues: map[string][]chan struct{}{},
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_query_fair_waiting", Help: "Read queries waiting for a ClickHouse slot."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_query_fair_refused_total", Help: "Read queries refused because the merchant's queue was full."})}
	if reg != nil {
		if err := errors.Join(reg.Register(g.waiting), reg.Register(g.refused)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Acquire waits for appid's turn; release must be called once after.
func (g *FairGate) Acquire(ctx context.Context, appid string) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	g.mu.Lock()
	if g.free > 0 && len(g.ring) == 0 {
		g.free--
		g.mu.Unlock()
		return g.release, nil
	}
	q := g.queues[appid]
	if len(q) >= g.perApp {
		g.mu.Unlock()
		g.refused.Inc()
		return nil, platform.Errorf(platform.KindRateLimited, "too many reports and listings of this merchant waiting; retry later")
	}
	ch := make(chan struct{})
	if len(q) == 0 {
		g.ring = append(g.ring, appid)
	}
	g.queues[appid] = append(q, ch)
	g.waiting.Inc()
	g.mu.Unlock()
	select {
	case <-ch:
		return g.release, nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-ch: // handed a slot meanwhile: give it on
			g.handOn()
		default:
			g.drop(appid, ch)
		}
		return nil, ctx.Err()
	}
}

// release frees a slot: to the next merchant in turn, else to the pool.
func (g *FairGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.handOn()
}

// handOn gives one slot to the first waiter of the merchant at the head of
// the ring and moves that merchant to the back; with no waiter the slot is
// free. Called with mu held.
func (g *FairGate) handOn() {
	if len(g.ring) == 0 {
		g.free++
		return
	}
	appid := g.ring[0]
	g.ring = g.ring[1:]
	q := g.queues[appid]
	ch := q[0]
	if len(q) == 1 {
		delete(g.queues, appid)
	} else {
		g.queues[appid] = q[1:]
		g.ring = append(g.ring, appid)
	}
	g.waiting.Dec()
	close(ch)
}

// drop removes a waiter that gave up. Called with mu held.
func (g *FairGate) drop(appid string, ch chan struct{}) {
	q := g.queues[appid]
	for i := range q {
		if q[i] == ch {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	g.waiting.Dec()
	if len(q) > 0 {
		g.queues[appid] = q
		return
	}
	delete(g.queues, appid)
	for i, a := range g.ring {
		if a == appid {
			g.ring = append(g.ring[:i:i], g.ring[i+1:]...)
			break
		}
	}
}
