package query

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
)

// FairGate bounds the ClickHouse queries the query side runs at once and
// shares them fairly between merchants: each merchant waits in a queue of
// its own, and a freed slot goes to the next merchant in turn that has a
// waiter, not to whoever asked first. One merchant's flood of listings then
// costs another merchant at most one turn per slot instead of a place behind
// the whole flood (before, a quiet merchant's 21 ms listing took 750 ms
// under another's flood). Turns alone were
// not enough (2.7x): the flood still held every slot, so the other
// merchant's query ran beside all of them on ClickHouse's two cores. A
// merchant therefore holds at most PerMerchantInFlight slots at once, even
// when more are free: the rest are kept for whoever comes next. A queue
// longer than PerMerchant is refused with 429 at once, so a flood cannot
// grow memory or latency without bound. A waiter leaves after MaxWait even
// when its context lives on: fasthttp does not cancel a request's context
// when its client hangs up, so without that bound a flood's abandoned
// waiters kept a merchant's queue full long after the flood, and the
// merchant's next reports were refused with 429 (gwbench's listing then
// report phases).
type FairGate struct {
	mu       sync.Mutex
	free     int
	perApp   int
	capApp   int
	capShare int
	window   time.Duration
	maxWait  time.Duration
	now      func() time.Time
	// recent holds when each merchant last asked for a slot, for
	// ShareWindow (entries up to twice that old until the next prune).
	recent   map[string]time.Time
	prunedAt time.Time
	inflight map[string]int
	queues   map[string][]chan struct{}
	ring     []string // merchants with waiters, in turn order
	waiting  prometheus.Gauge
	refused  prometheus.Counter
	timedOut prometheus.Counter
}

// FairGateConfig sizes the gate.
type FairGateConfig struct {
	Concurrency int // queries to ClickHouse at once (default 8)
	PerMerchant int // waiters per merchant before 429 (default 64)
	// PerMerchantInFlight: slots one merchant may hold at once (default
	// a quarter of Concurrency, at least 1: 2 of 8). At half (4 of 8) a
	// flood's four queries shared ClickHouse's two cores with another
	// merchant's listing, 3.0x its quiet p99 (gwbench; the target is
	// at most 2x); at 2 it was 2.0x. Half had been chosen so that a flood's
	// abandoned waiters drained before a bench's next phase; MaxWait
	// bounds them now.
	PerMerchantInFlight int
	// SharedInFlight: the cap instead while another merchant reads
	// (default half of PerMerchantInFlight, at least 1). A flood at 2
	// slots still took a quiet merchant's listing to 2.2x its quiet p99
	// through the gateway; at 1 it stayed within 2x, but a merchant alone
	// then got half its listings a second (80 to 44/s) for nobody's gain.
	SharedInFlight int
	// ShareWindow: how long after its last query a merchant still counts
	// as reading (default 1s). A merchant polling its listing a few times
	// a second is between queries most of the time; were only running
	// queries counted, a flood would be back at its full cap whenever the
	// other's next query arrived, and that query would run beside it.
	ShareWindow time.Duration
	// MaxWait: the longest a query waits for a slot before it is refused
	// (default 10s).
	MaxWait time.Duration
}

// FairGateDefaults is the gate `gateway serve` runs unless told otherwise.
func FairGateDefaults() FairGateConfig { return FairGateConfig{}.withDefaults() }

// withDefaults fills the zero fields; the two caps follow from the
// concurrency (and the cap) given, as their comments say.
func (c FairGateConfig) withDefaults() FairGateConfig {
	c.Concurrency = cmp.Or(c.Concurrency, 8)
	c.PerMerchant = cmp.Or(c.PerMerchant, 64)
	c.PerMerchantInFlight = cmp.Or(c.PerMerchantInFlight, max(1, c.Concurrency/4))
	c.SharedInFlight = cmp.Or(c.SharedInFlight, max(1, c.PerMerchantInFlight/2))
	c.MaxWait = cmp.Or(c.MaxWait, 10*time.Second)
	c.ShareWindow = cmp.Or(c.ShareWindow, time.Second)
	return c
}

// Validate refuses nonsense; it changes nothing.
func (c FairGateConfig) Validate() error {
	if c.Concurrency < 1 || c.PerMerchant < 1 || c.PerMerchantInFlight < 1 || c.SharedInFlight < 1 || c.MaxWait < 0 || c.ShareWindow < 0 {
		return errors.New("query: read concurrency, per-merchant queue, in-flight caps, wait and share window must be positive")
	}
	if c.PerMerchantInFlight > c.Concurrency || c.SharedInFlight > c.PerMerchantInFlight {
		return errors.New("query: the per-merchant in-flight cap exceeds the read concurrency, or the shared cap the cap")
	}
	return nil
}

// NewFairGate makes a gate and registers its gauges.
func NewFairGate(cfg FairGateConfig, reg prometheus.Registerer) (*FairGate, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &FairGate{free: cfg.Concurrency, perApp: cfg.PerMerchant, capApp: cfg.PerMerchantInFlight, capShare: cfg.SharedInFlight,
		window: cfg.ShareWindow, maxWait: cfg.MaxWait, now: time.Now, recent: map[string]time.Time{},
		inflight: map[string]int{}, queues: map[string][]chan struct{}{},
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_query_fair_waiting", Help: "Read queries waiting for a ClickHouse slot."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_query_fair_refused_total", Help: "Read queries refused because the merchant's queue was full."}),
		timedOut: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_query_fair_timed_out_total",
			Help: "Read queries refused because they waited the longest wait for a ClickHouse slot."})}
	if reg != nil {
		if err := errors.Join(reg.Register(g.waiting), reg.Register(g.refused), reg.Register(g.timedOut)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Acquire waits for appid's turn; release must be called once after.
// Once handOn has run, every merchant still waiting is at its cap whenever
// a slot is free, so a merchant below its cap with no queue of its own may
// take a free slot at once without passing anyone.
func (g *FairGate) Acquire(ctx context.Context, appid string) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	release = func() { g.release(appid) }
	g.mu.Lock()
	g.seen(appid)
	g.handOn() // a waiter's cap may have risen since: the others went quiet
	q := g.queues[appid]
	if g.free > 0 && g.inflight[appid] < g.capOf(appid) && len(q) == 0 {
		g.take(appid)
		g.mu.Unlock()
		return release, nil
	}
	if len(q) >= g.perApp {
		g.mu.Unlock()
		g.refused.Inc()
		return nil, g.refusal(platform.KindRateLimited, "too many reports and listings of this merchant are waiting for the database")
	}
	appid = strings.Clone(appid) // kept in the gate's maps
	ch := make(chan struct{})
	if len(q) == 0 {
		g.ring = append(g.ring, appid)
	}
	g.queues[appid] = append(q, ch)
	g.waiting.Inc()
	g.mu.Unlock()
	timer := time.NewTimer(g.maxWait)
	defer timer.Stop()
	select {
	case <-ch:
		return release, nil
	case <-ctx.Done():
		if g.leave(appid, ch) {
			release() // handed a slot meanwhile: give it on
		}
		return nil, ctx.Err()
	case <-timer.C:
		if g.leave(appid, ch) {
			return release, nil
		}
		return nil, g.waitedOut(appid)
	}
}

// leave takes a waiter that gives up out of its queue, and reports whether
// it was handed a slot meanwhile (the caller then holds it).
func (g *FairGate) leave(appid string, ch chan struct{}) (served bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-ch:
		return true
	default:
		g.drop(appid, ch)
		return false
	}
}

// waitedOut is the refusal of a query that waited MaxWait: 429 when the
// merchant itself holds its share of slots (its own queries are what it
// waits behind), 503 when the slots are busy with other merchants' queries.
func (g *FairGate) waitedOut(appid string) error {
	g.timedOut.Inc()
	g.mu.Lock()
	own := g.inflight[appid] >= g.capOf(appid)
	g.mu.Unlock()
	if own {
		return g.refusal(platform.KindRateLimited, "this merchant's reports and listings already use its share of the database")
	}
	return g.refusal(platform.KindUnavailable, "the database is busy with reports and listings")
}

// refusal is a gate's error: the reason, and Retry-After of the longest
// wait (a queue drains by then, or the client hung up long before).
func (g *FairGate) refusal(kind platform.Kind, reason string) error {
	secs := max(1, int((g.maxWait+time.Second-1)/time.Second))
	return &platform.Error{Kind: kind, Msg: reason + "; retry after " + strconv.Itoa(secs) + "s", RetryAfter: time.Duration(secs) * time.Second}
}

// seen notes that appid reads now, and forgets merchants that have not
// for a window, at most once a window. Called with mu held.
func (g *FairGate) seen(appid string) {
	now := g.now()
	if _, ok := g.recent[appid]; !ok {
		appid = strings.Clone(appid) // kept in the map
	}
	g.recent[appid] = now
	if now.Sub(g.prunedAt) < g.window {
		return
	}
	g.prunedAt = now
	for a, at := range g.recent {
		if now.Sub(at) > g.window {
			delete(g.recent, a)
		}
	}
}

// capOf is appid's cap: the full one while it reads alone, the shared
// one while another merchant holds a slot, waits for one, or asked for
// one within the window. Called with mu held.
func (g *FairGate) capOf(appid string) int {
	if g.capShare == g.capApp {
		return g.capApp
	}
	now := g.now()
	for a, at := range g.recent {
		if a != appid && now.Sub(at) <= g.window {
			return g.capShare
		}
	}
	for a := range g.inflight {
		if a != appid {
			return g.capShare
		}
	}
	for _, a := range g.ring {
		if a != appid {
			return g.capShare
		}
	}
	return g.capApp
}

// take and put count a slot out to and back from appid. Called with mu held.
func (g *FairGate) take(appid string) {
	g.free--
	g.inflight[appid]++
}

func (g *FairGate) put(appid string) {
	g.free++
	if g.inflight[appid]--; g.inflight[appid] <= 0 {
		delete(g.inflight, appid)
	}
}

// release frees appid's slot and hands free slots on.
func (g *FairGate) release(appid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.put(appid)
	g.handOn()
}

// handOn gives free slots, one at a time, to the first waiter of the next
// merchant in turn that is below its cap, moving that merchant to the back
// of the ring. Called with mu held.
func (g *FairGate) handOn() {
	for g.free > 0 {
		i := slices.IndexFunc(g.ring, func(a string) bool { return g.inflight[a] < g.capOf(a) })
		if i < 0 {
			return
		}
		appid := g.ring[i]
		g.ring = slices.Delete(g.ring, i, i+1)
		q := g.queues[appid]
		ch := q[0]
		if len(q) == 1 {
			delete(g.queues, appid)
		} else {
			g.queues[appid] = q[1:]
			g.ring = append(g.ring, appid)
		}
		g.take(appid)
		g.waiting.Dec()
		close(ch)
	}
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
	if i := slices.Index(g.ring, appid); i >= 0 {
		g.ring = slices.Delete(g.ring, i, i+1)
	}
}
