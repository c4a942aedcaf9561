package query

import (
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

// projectMore projects what the workload did since the last projection
// with one projector, and waits until ClickHouse holds it.
func projectMore(t *testing.T, rdb redis.UniversalClient, ch driver.Conn, w *reportWorkload) {
	t.Helper()
	stop, done := runProjector(t, rdb, projector.NewClickHouse(ch), projector.Config{Consumer: "more", BatchSize: 40,
		FlushInterval: 20 * time.Millisecond, ClaimIdle: 100 * time.Millisecond, ClaimEvery: 100 * time.Millisecond})
	defer func() { stop(); <-done }()
	w.truth()
	waitProjected(t, ch, w, func() (int, bool) { return 0, true })
	// The marks follow the orders rows of a batch; the projector's stop
	// flushes what it holds, so once stopped every mark is in.
}

// rollUp runs the rollup job once, with a clock margin of a millisecond
// (the test's projectors and job share one clock), and returns how many
// merchant hours it folded.
func rollUp(t *testing.T, ch driver.Conn) int {
	t.Helper()
	r, err := NewRollup(RollupConfig{Margin: time.Millisecond}, ch, nil, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // every mark so far is older than the fold's as_of
	n, err := r.RunOnce(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rollupHours counts the merchants' hours whose rollup readers trust and
// those they fold live because a mark is newer.
func rollupHours(t *testing.T, ch driver.Conn, appids []string) (clean, stale int) {
	t.Helper()
	for _, a := range appids {
		hours, err := NewClickHouseOrders(ch).cleanHours(t.Context(), a, time.Unix(0, 0), time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var rolled uint64
		if err := ch.QueryRow(t.Context(), "SELECT count() FROM (SELECT DISTINCT hour FROM report_cells WHERE appid = ?)", a).Scan(&rolled); err != nil {
			t.Fatal(err)
		}
		clean += len(hours)
		stale += int(rolled) - len(hours)
	}
	return clean, stale
}

// requireMixedPlan fails unless some merchant's whole-range report is served
// partly from rollups and partly live beyond the range's edges: the last
// round of the exactness test must check the two together.
func requireMixedPlan(t *testing.T, c *ClickHouseOrders, appids []string, w *reportWorkload) {
	t.Helper()
	for _, a := range appids {
		p, err := c.plan(t.Context(), ReportFilter{AppID: a, From: w.now.Add(-11 * 24 * time.Hour), To: w.now.Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.rolled) > 0 && len(p.live) > 2 {
			return
		}
	}
	t.Fatal("no merchant's report mixes rollups with hours folded live again")
}

// TestRollupReadsNewestFold: an hour folded twice (merges stopped, so both
// rows stay) is read from its newer fold; an hour re-marked after its fold
// is folded live until the job runs again.
func TestRollupReadsNewestFold(t *testing.T) {
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	ctx := t.Context()
	if err := ch.Exec(ctx, "SYSTEM STOP MERGES report_cells"); err != nil {
		t.Fatal(err)
	}
	sink, orders := projector.NewClickHouse(ch), NewClickHouseOrders(ch)
	at := time.Now().UTC().Add(-72 * time.Hour).Truncate(time.Millisecond)
	o := schema.Order{ID: schema.NewOrderID(at, schema.RandomShard()), AppID: "twice", Amount: 500, Currency: "USD",
		Method: schema.MethodWalletA, Status: schema.StatusPending, CreatedAt: at, UpdatedAt: at, Version: 1}
	f := ReportFilter{AppID: "twice", From: at.Add(-24 * time.Hour), To: at.Add(24 * time.Hour)}
	paidNow := func(want int) {
		t.Helper()
		s, err := orders.Summary(ctx, f)
		if err != nil || s.Created != 1 || s.Paid != want {
			t.Fatalf("summary: %d created, %d paid (want 1, %d): %v", s.Created, s.Paid, want, err)
		}
	}
	insert := func() {
		t.Helper()
		if err := sink.Insert(ctx, []schema.Event{{Order: o, At: o.UpdatedAt}}); err != nil {
			t.Fatal(err)
		}
	}
	insert()
	rollUp(t, ch)
	paidNow(0)
	o.Status, o.Version, o.UpdatedAt, o.CompletedAt = schema.StatusPaid, 2, at.Add(time.Minute), at.Add(time.Minute)
	insert()
	paidNow(1) // the mark makes the hour live
	rollUp(t, ch)
	var folds uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM report_cells WHERE appid = 'twice' AND hour = ?", at.Truncate(time.Hour)).Scan(&folds); err != nil || folds != 2 {
		t.Fatalf("%d folds of the hour, want 2 (%v)", folds, err)
	}
	p, err := orders.plan(ctx, f)
	if err != nil || len(p.rolled) == 0 || len(p.live) != 2 {
		t.Fatalf("plan %+v (%v): the hour should be rolled again", p, err)
	}
	paidNow(1)
}
