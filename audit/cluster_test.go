package audit

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
)

// TestAuditSearchOnClickHouseCluster: migrated on a ClickHouse cluster, the
// projector writes through the Distributed table and the search (FINAL,
// through the Distributed table) sees each entry once after a replay.
func TestAuditSearchOnClickHouseCluster(t *testing.T) {
	c := testenv.ClickHouseCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := platform.MigrateCluster(ctx, c.DSN(0), c.Name); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouseCluster(c.DSN(0), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	rdb := testenv.Redis(t)
	l := NewLog(rdb)
	for i := range 20 {
		e := good()
		e.At = at.Add(time.Duration(i) * time.Second)
		if _, err := l.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	count := func() uint64 {
		var rows uint64
		_ = ch.QueryRow(ctx, "SELECT count() FROM audit_log").Scan(&rows)
		return rows
	}
	run := func(want uint64) {
		p, err := NewProjector(ProjectorConfig{Wait: 50 * time.Millisecond}, rdb, ch, prometheus.NewRegistry(), log)
		if err != nil {
			t.Fatal(err)
		}
		pctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- p.Run(pctx) }()
		for deadline := time.Now().Add(30 * time.Second); count() < want; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d rows, want %d", count(), want)
			}
		}
		stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	run(20)
	// Replay everything: a second projector from the stream's start.
	if err := rdb.XGroupDestroy(ctx, "gw:{audit}:audit", "audit").Err(); err != nil {
		t.Fatal(err)
	}
	run(40)
	s := NewSearcher(ch)
	pg, err := s.Search(ctx, Filter{AppID: "1001", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Total != 20 || len(pg.Rows) != 5 || !pg.Rows[0].At.Equal(at.Add(19*time.Second)) {
		t.Fatalf("total %d, %d rows, first %v", pg.Total, len(pg.Rows), pg.Rows)
	}
}
