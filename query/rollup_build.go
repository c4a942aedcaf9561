package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
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
	// FullEvery: how often every mark is compared, not only those since
	// the last run (default 10m). Hours with orders but no mark and no
	// rollup (data older than the report tables) are looked for at start.
	FullEvery time.Duration
}

// RollupDefaults is the job's rhythm unless told otherwise.
func RollupDefaults() RollupConfig {
	return RollupConfig{OpenWindow: 2 * time.Hour, Every: 10 * time.Second, Margin: 30 * time.Second, FullEvery: 10 * time.Minute}
}

// withDefaults fills the zero fields from RollupDefaults.
func (c RollupConfig) withDefaults() RollupConfig {
	d := RollupDefaults()
	c.OpenWindow = cmp.Or(c.OpenWindow, d.OpenWindow)
	c.Every = cmp.Or(c.Every, d.Every)
	c.Margin = cmp.Or(c.Margin, d.Margin)
	c.FullEvery = cmp.Or(c.FullEvery, d.FullEvery)
	return c
}

// Validate refuses nonsense; it changes nothing.
func (c RollupConfig) Validate() error {
	if c.OpenWindow < time.Hour || c.Every <= 0 || c.Margin <= 0 || c.FullEvery <= 0 {
		return errors.New("query: rollup open window must be at least 1h, the periods positive")
	}
	return nil
}

// Rollup keeps report_cells: it folds each merchant hour older than the
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
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Rollup{cfg: cfg, conn: conn, log: log.With("role", "rollup"), now: time.Now,
		folded:   prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_report_rollup_folds_total", Help: "Merchant hours folded into report_cells (one per merchant and hour folded)."}),
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
// says how many merchant hours it wrote.
func (r *Rollup) RunOnce(ctx context.Context) (int, error) {
	start := r.now()
	asOf := uint64(start.Add(-r.cfg.Margin).UnixMilli())
	limit := start.Add(-r.cfg.OpenWindow).Truncate(time.Hour)
	full := r.since == 0 || start.Sub(r.lastFull) >= r.cfg.FullEvery
	stale, err := r.stale(ctx, limit, full, r.since == 0)
	if err != nil {
		return 0, err
	}
	n := 0
	days := byDay(stale)
	for _, d := range slices.Sorted(maps.Keys(days)) {
		lo := time.Unix(d, 0).UTC()
		hi := lo.Add(24 * time.Hour)
		if hi.After(limit) {
			hi = limit
		}
		wrote, err := r.foldDay(ctx, slices.Sorted(maps.Keys(days[d])), lo, hi, asOf)
		if err != nil {
			return n, err
		}
		n += wrote
		r.folded.Add(float64(wrote))
	}
	// A mark stamped before this run's as_of was visible to it unless its
	// insert took longer than a margin: the next run looks a margin further
	// back, and a full pass catches anything slower.
	r.since = max(1, asOf-uint64(r.cfg.Margin.Milliseconds()))
	if full {
		r.lastFull = start
	}
	return n, nil
}

// byDay groups stale merchant hours by UTC day: a day is folded in one
// query for every merchant stale in it.
func byDay(stale []hourKey) map[int64]map[string]bool {
	out := map[int64]map[string]bool{}
	for _, k := range stale {
		d := k.hour - k.hour%86400
		if out[d] == nil {
			out[d] = map[string]bool{}
		}
		out[d][k.appid] = true
	}
	return out
}

// stale lists the merchant hours before limit whose newest mark (from
// r.since on, or any when full) is at least as new as their newest
// rollup, or that have none; the first run of a process also takes the
// hours with orders and no rollup (data older than the report tables, or
// loaded around the projector), a scan of the whole orders table. The
// comparison runs in ClickHouse; GLOBAL makes the subqueries run once on a
// cluster (and changes nothing on one node).
func (r *Rollup) stale(ctx context.Context, limit time.Time, full, unmarked bool) ([]hourKey, error) {
	since := r.since
	if full {
		since = 0
	}
	var out []hourKey
	err := r.scan(ctx, &out, "SELECT appid, hour FROM (SELECT appid, hour, max(marked_ms) AS mk FROM report_marks "+
		"WHERE hour < ? AND marked_ms >= ? GROUP BY appid, hour) ANY LEFT JOIN (SELECT appid, hour, max(as_of_ms) AS a "+
		"FROM report_cells WHERE appid GLOBAL IN (SELECT appid FROM report_marks WHERE marked_ms >= ?) GROUP BY appid, hour) "+
		"USING (appid, hour) WHERE mk >= a", limit, since, since)
	if err != nil || !unmarked {
		return out, err
	}
	err = r.scan(ctx, &out, "SELECT appid, toStartOfHour(created_at, 'UTC') AS h FROM orders WHERE created_at < ? "+
		"GROUP BY appid, h HAVING (appid, h) GLOBAL NOT IN (SELECT appid, hour FROM report_cells)", limit)
	return out, err
}

// scan appends the (appid, hour) rows of q to out.
func (r *Rollup) scan(ctx context.Context, out *[]hourKey, q string, args ...any) error {
	rows, err := r.conn.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("rollup scan: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			appid string
			h     time.Time
		)
		if err := rows.Scan(&appid, &h); err != nil {
			return fmt.Errorf("rollup scan: %w", err)
		}
		*out = append(*out, hourKey{appid, h.Unix()})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rollup scan: %w", err)
	}
	return nil
}
