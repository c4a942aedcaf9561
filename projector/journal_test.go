package projector_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

// TestJournalProjectionAcksOnlyWhatItRecomputed: while the daily table
// cannot be written, every journal entry stays pending in the group (the
// rows went in, the days did not); once it can, the same entries are
// inserted again, their days recomputed, acknowledged, and the daily
// table counts each posting once.
func TestJournalProjectionAcksOnlyWhatItRecomputed(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	const appid = "5001"
	mix := fixture.PostLedgerMix(t, j, appid, time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC))
	journaltest.Check(t, rdb)
	if err := ch.Exec(ctx, "RENAME TABLE journal_days TO journal_days_away"); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	p, err := projector.NewJournalProjection(projector.JournalConfig{Consumer: "t1", Wait: 20 * time.Millisecond}, rdb, ch, reg,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Run(rctx) }()
	t.Cleanup(func() { cancel(); <-done })
	stream := schema.JournalKey(schema.HomeShard(appid))
	pending := func() int64 {
		x, err := rdb.XPending(ctx, stream, schema.GroupStatements).Result()
		if err != nil {
			return -1
		}
		return x.Count
	}
	testenv.Eventually(t, 20*time.Second, "inserts failing", func() bool {
		return failures(t, reg) >= 2
	})
	if n := pending(); n != int64(mix.Posted) {
		t.Fatalf("%d entries pending while the days cannot be written, want all %d", n, mix.Posted)
	}
	if err := ch.Exec(ctx, "RENAME TABLE journal_days_away TO journal_days"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 20*time.Second, "every entry acknowledged", func() bool { return pending() == 0 })
	var fees int64
	if err := ch.QueryRow(ctx, "SELECT toInt64(sum(f)) FROM (SELECT argMax(fees, version) AS f FROM journal_days WHERE appid = ? GROUP BY day, currency, kind)", appid).Scan(&fees); err != nil {
		t.Fatal(err)
	}
	if fees != 3_20+1_75+7-80 { // the payments' fees, less the refund's part given back
		t.Fatalf("fees %d in the daily table, want each posting once", fees)
	}
}

// failures is the projection's failed inserts so far.
func failures(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "gateway_journal_projection_errors_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}
