package channel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// HealthConfig is when a channel's breaker opens and how it comes back.
type HealthConfig struct {
	FailuresInRow int           // failures one after another that open it
	MinRate       int           // per cent: a success rate under it over Window opens it
	Window        time.Duration // the span the success rate is judged over
	MinAttempts   int           // attempts in Window before the rate is judged at all
	CoolDown      time.Duration // an opened breaker's wait before one probe
	ProbeLease    time.Duration // how long one process holds the probe
	// Configured lists the channels this process has credentials for, so
	// gateway_channel_breaker_state has a series for each (a method whose
	// every channel is open can then be alerted on). Nil: only channels
	// with a stored breaker are exported.
	Configured Configured
	Now        func() time.Time
}

// HealthDefaults is the breaker of the channels plan: five in a row, under
// half over a minute of at least twenty, a keyword at once; probed after
// thirty seconds.
func HealthDefaults() HealthConfig {
	return HealthConfig{FailuresInRow: 5, MinRate: 50, Window: time.Minute, MinAttempts: 20,
		CoolDown: 30 * time.Second, ProbeLease: 10 * time.Second, Now: time.Now}
}

func (c HealthConfig) withDefaults() HealthConfig {
	d := HealthDefaults()
	if c.FailuresInRow == 0 {
		c.FailuresInRow = d.FailuresInRow
	}
	if c.MinRate == 0 {
		c.MinRate = d.MinRate
	}
	if c.Window == 0 {
		c.Window = d.Window
	}
	if c.MinAttempts == 0 {
		c.MinAttempts = d.MinAttempts
	}
	if c.CoolDown == 0 {
		c.CoolDown = d.CoolDown
	}
	if c.ProbeLease == 0 {
		c.ProbeLease = d.ProbeLease
	}
	if c.Now == nil {
		c.Now = d.Now
	}
	return c
}

// Validate refuses a breaker that could never open or never come back.
func (c HealthConfig) Validate() error {
	var errs []error
	if c.FailuresInRow < 1 {
		errs = append(errs, errors.New("failures in a row must be at least 1"))
	}
	if c.MinRate < 1 || c.MinRate > 100 {
		errs = append(errs, errors.New("minimum success rate must be 1 to 100 per cent"))
	}
	if c.Window < time.Second {
		errs = append(errs, errors.New("window must be at least a second"))
	}
	if c.MinAttempts < 1 {
		errs = append(errs, errors.New("minimum attempts must be at least 1"))
	}
	if c.CoolDown < time.Second || c.ProbeLease < time.Second {
		errs = append(errs, errors.New("cool-down and probe lease must be at least a second"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("channel health config: %w", errors.Join(errs...))
	}
	return nil
}

// Health is a channel's circuit breaker. Each process judges the attempts
// it made itself (no Redis call on the create path for that); when one
// opens a breaker it writes the new state through Store.SetBreaker, so
// every process's Directory takes the channel out within a second, and
// the one change is logged once however many processes saw it fail.
type Health struct {
	cfg   HealthConfig
	store *Store
	dir   *Directory
	rdb   redis.Cmdable
	log   *slog.Logger
	m     *healthMetrics

	mu      sync.Mutex
	windows map[Ref]*window
	probing map[Ref]time.Time // this process holds the probe lease, until

	stats    statsBuffer
	flushing atomic.Bool
	writing  sync.Mutex // one write of the counts at a time: Flush waits for the background one
}

// NewHealth judges channels by cfg, writing breaker changes to store,
// reading them from dir and keeping attempt counts in rdb.
func NewHealth(cfg HealthConfig, store *Store, dir *Directory, rdb redis.Cmdable, reg prometheus.Registerer, log *slog.Logger) (*Health, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil || dir == nil || rdb == nil {
		return nil, errors.New("channel health: store, directory and redis are required")
	}
	if log == nil {
		log = slog.Default()
	}
	h := &Health{cfg: cfg, store: store, dir: dir, rdb: rdb, log: log,
		windows: map[Ref]*window{}, probing: map[Ref]time.Time{}}
	h.stats.init()
	m, err := newHealthMetrics(h, reg)
	if err != nil {
		return nil, err
	}
	h.m = m
	return h, nil
}

// Report tells the breaker how one initialisation on ref went. A plain
// refusal is the provider answering about this payment: the account works,
// so for the breaker it counts as a success.
func (h *Health) Report(ctx context.Context, ref Ref, o Outcome) {
	now := h.cfg.Now()
	h.m.observe(ref, o)
	failed := o.FailsOver()
	h.stats.add(ref, now, failed)
	h.maybeFlush(ctx, now)

	h.mu.Lock()
	probe := h.probeOutcome(ref, now)
	trip := ""
	if !probe {
		trip = h.judge(ref, now, o)
	}
	h.mu.Unlock()

	switch {
	case probe && failed:
		h.reopen(ctx, ref, now, "probe failed: "+describe(o))
	case probe:
		h.closeAfterProbe(ctx, ref, now)
	case trip != "":
		h.trip(ctx, ref, now, trip)
	}
}

// judge adds o to ref's window and says why the breaker must open, ""
// when it need not. The window restarts whenever the stored breaker moved
// since it began, so failures from before a close do not reopen it.
func (h *Health) judge(ref Ref, now time.Time, o Outcome) string {
	b := h.dir.Now().BreakerOf(ref)
	w := h.windows[ref]
	since := b.Since
	if w == nil || !w.epoch.Equal(since) {
		w = newWindow(h.cfg.Window, since)
		h.windows[ref] = w
	}
	w.add(now, !o.FailsOver())
	if b.State != Closed && b.State != "" {
		return "" // already out; what fails now was in flight
	}
	why := h.why(w, now, o)
	if why != "" {
		w.reset() // one trip per run of failures, not one per failure
	}
	return why
}

func (h *Health) why(w *window, now time.Time, o Outcome) string {
	switch {
	case o.Reason == ReasonKeyword && !o.OK:
		return "keyword: " + o.Keyword
	case w.inRow >= h.cfg.FailuresInRow:
		return fmt.Sprintf("%d failures in a row (last: %s)", w.inRow, describe(o))
	}
	ok, n := w.counts(now)
	if n >= int64(h.cfg.MinAttempts) && ok*100 < int64(h.cfg.MinRate)*n {
		return fmt.Sprintf("success rate %d%% under %d%% over %s (%d attempts)", ok*100/n, h.cfg.MinRate, h.cfg.Window, n)
	}
	return ""
}

// describe is an outcome's reason as an operator reads it in an audit
// entry: the reason word, never the provider's full text.
func describe(o Outcome) string {
	if o.Reason == ReasonKeyword && o.Keyword != "" {
		return "keyword: " + o.Keyword
	}
	if o.Reason == "" {
		return "failure"
	}
	return o.Reason
}
