package query

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
)

// RollupConfig tunes the rollup job. The zero value of a field takes its
// default.
type RollupConfig struct {
	// OpenWindow: hours younger than this are not rolled up; their orders
	// still change by the minute and readers fold them live (default 2h).
	OpenWindow time.Duration
	// Every is how often the job looks for hours to fold (default 10s).
	Every time.Duration
	// Margin is the clock difference tolerated between projectors and this
	// job: a fold's as_of_ms is its start minus Margin (default 30s).
	Margin time.Duration
	// FullEvery: how often all hours are compared, not only those marked
	// since the last run, and hours with orders but no rollup (data older
	// than the report tables) are folded (default 10m).
	FullEvery time.Duration
}

// Validate fills defaults and refuses nonsense.
func (c *RollupConfig) Validate() error {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.OpenWindow, 2*time.Hour)
	def(&c.Every, 10*time.Second)
	def(&c.Margin, 30*time.Second)
	def(&c.FullEvery, 10*time.Minute)
	if c.OpenWindow < time.Hour || c.Every <= 0 || c.Margin <= 0 || c.FullEvery <= 0 {
		return errors.New("query: rollup open window must be at least 1h, the periods positive")
	}
	return nil
}

// Rollup keeps report_hourly: it folds each merchant hour older than the
// open window once, and again whenever a mark newer than its fold says an
// order of that hour changed (a refund, a late pay). Each fold is a fresh
// snapshot of the hour written as one row, never a delta, so a fold run
// twice, by two processes at once, or after a crash is harmless, and so is
// a projector batch inserted twice (its orders fold the same). Readers
// check the marks themselves (rollup_plan.go): a stale rollup is never
// read, it only makes that hour live until the job catches up.
type Rollup struct {
	cfg      RollupConfig
	conn     driver.Conn
	log      *slog.Logger
	now      func() time.Time
	since    uint64 // marks from this (ms) on are looked at; 0 before the first run
	lastFull time.Time
	folded   prometheus.Counter
	failures prometheus.Counter
}

// NewRollup makes the job and registers its counters.
func NewRollup(cfg RollupConfig, conn driver.Conn, reg prometheus.Registerer, log *slog.Logger) (*Rollup, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Rollup{cfg: cfg, conn: conn, log: log.With("role", "rollup"), now: time.Now,
		folded:   prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_report_rollup_hours_total", Help: "Merchant hours folded into report_hourly."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_report_rollup_failures_total", Help: "Rollup runs that failed (retried on the next)."})}
	if reg != nil {
		if err := errors.Join(reg.Register(r.folded), reg.Register(r.failures)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Run folds what is stale every cfg.Every until ctx ends.
func (r *Rollup) Run(ctx context.Context) {
	t := time.NewTicker(r.cfg.Every)
	defer t.Stop()
	for {
		if _, err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
			r.failures.Inc()
			r.log.Warn("rollup run failed; retrying on the next", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// hourKey is one merchant hour.
type hourKey struct {
	appid string
	hour  int64 // Unix seconds
}

// RunOnce folds every stale merchant hour older than the open window and
// says how many it folded.
func (r *Rollup) RunOnce(ctx context.Context) (int, error) {
	start := r.now()
	asOf := uint64(start.Add(-r.cfg.Margin).UnixMilli())
	limit := start.Add(-r.cfg.OpenWindow).Truncate(time.Hour)
	full := r.since == 0 || start.Sub(r.lastFull) >= r.cfg.FullEvery
	stale, err := r.stale(ctx, limit, full)
	if err != nil {
		return 0, err
	}
	n := 0
	for appid, hours := range stale {
		slices.Sort(hours)
		if err := r.fold(ctx, appid, hours, asOf); err != nil {
			return n, err
		}
		n += len(hours)
		r.folded.Add(float64(len(hours)))
	}
	// A mark stamped before this run's as_of was visible to it unless its
	// insert took longer than a margin: the next run looks a margin further
	// back, and a full comparison catches anything slower.
	r.since = max(1, asOf-uint64(r.cfg.Margin.Milliseconds()))
	if full {
		r.lastFull = start
	}
	return n, nil
}

// stale lists, per merchant, the hours before limit whose newest mark is
// at least as new as their newest rollup, or that have none; a full pass
// also takes hours with orders and no rollup.
func (r *Rollup) stale(ctx context.Context, limit time.Time, full bool) (map[string][]int64, error) {
	have := map[hourKey]uint64{}
	if err := r.scan(ctx, "SELECT appid, hour, max(as_of_ms) FROM report_hourly WHERE hour < ? GROUP BY appid, hour", have, limit); err != nil {
		return nil, err
	}
	since := r.since
	if full {
		since = 0
	}
	marked := map[hourKey]uint64{}
	if err := r.scan(ctx, "SELECT appid, hour, max(marked_ms) FROM report_marks WHERE hour < ? AND marked_ms >= ? GROUP BY appid, hour", marked, limit, since); err != nil {
		return nil, err
	}
	if full {
		if err := r.scan(ctx, "SELECT appid, toStartOfHour(created_at, 'UTC') AS h, toUInt64(0) FROM orders WHERE created_at < ? GROUP BY appid, h", marked, limit); err != nil {
			return nil, err
		}
	}
	if full {
		fillGaps(have, marked, limit)
	}
	out := map[string][]int64{}
	for k, m := range marked {
		if a, ok := have[k]; !ok || m >= a {
			out[k.appid] = append(out[k.appid], k.hour)
		}
	}
	return out, nil
}

// fillGaps adds to stale every hour of a merchant, from its first hour with
// orders up to limit, that has no rollup: empty hours get an empty row, so
// that readers see one unbroken stretch of rollups instead of islands,
// each of which would cost them a condition.
func fillGaps(have, stale map[hourKey]uint64, limit time.Time) {
	first := map[string]int64{}
	for _, m := range []map[hourKey]uint64{have, stale} {
		for k := range m {
			if h, ok := first[k.appid]; !ok || k.hour < h {
				first[k.appid] = k.hour
			}
		}
	}
	for appid, h := range first {
		for ; h < limit.Unix(); h += 3600 {
			k := hourKey{appid, h}
			if _, ok := have[k]; !ok {
				if _, ok := stale[k]; !ok {
					stale[k] = 0
				}
			}
		}
	}
}

// scan reads (appid, hour, value) rows into m, keeping the larger value.
func (r *Rollup) scan(ctx context.Context, q string, m map[hourKey]uint64, args ...any) error {
	rows, err := r.conn.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("rollup scan: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			appid string
			h     time.Time
			v     uint64
		)
		if err := rows.Scan(&appid, &h, &v); err != nil {
			return fmt.Errorf("rollup scan: %w", err)
		}
		k := hourKey{appid, h.Unix()}
		if have, ok := m[k]; !ok || v > have {
			m[k] = v
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rollup scan: %w", err)
	}
	return nil
}

// maxFoldSpan bounds the hours one fold query covers, and so its memory.
const maxFoldSpan = 24

// fold folds appid's hours (sorted) in runs of consecutive hours.
func (r *Rollup) fold(ctx context.Context, appid string, hours []int64, asOf uint64) error {
	for i := 0; i < len(hours); {
		j := i + 1
		for j < len(hours) && j-i < maxFoldSpan && hours[j] == hours[j-1]+3600 {
			j++
		}
		lo := time.Unix(hours[i], 0).UTC()
		if err := r.foldSpan(ctx, appid, lo, lo.Add(time.Duration(j-i)*time.Hour), asOf); err != nil {
			return err
		}
		i = j
	}
	return nil
}
