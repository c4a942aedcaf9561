package audit

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// projected runs a projector over the real Redis and ClickHouse until the
// test ends, and returns the search over what it writes.
func projected(t *testing.T) (*redis.Client, driver.Conn, *Searcher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rdb := testenv.Redis(t)
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := NewProjector(ProjectorConfig{Wait: 50 * time.Millisecond, ClaimIdle: time.Hour}, rdb, ch, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("projector: %v", err)
		}
		_ = ch.Close()
	})
	return rdb, ch, NewSearcher(ch)
}

// waitRows waits until ClickHouse holds n distinct audit rows.
func waitRows(t *testing.T, ch driver.Conn, n uint64) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("%d audit rows in ClickHouse", n), func() bool {
		var got uint64
		if err := ch.QueryRow(context.Background(), "SELECT uniqExact(id) FROM audit_log").Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got >= n
	})
}

// TestProjectAndSearch: entries appended plainly and by a script reach
// ClickHouse once each (a replay of the whole stream adds no row), and the
// search finds them by actor, target, action and time, a page at a time.
func TestProjectAndSearch(t *testing.T) {
	rdb, ch, s := projected(t)
	ctx := context.Background()
	l := NewLog(rdb)
	for i := range 25 {
		e := good()
		e.At = at.Add(time.Duration(i) * time.Minute)
		e.Target = "order:" + strconv.Itoa(i%5)
		if i%2 == 1 {
			e.ActorID, e.ActorEmail, e.Action = "u2", "b@shop.test", "user.create"
		}
		if i == 24 {
			e.AppID, e.Realm, e.Role = "", RealmOperator, "admin"
		}
		if _, err := l.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	args, err := ScriptArgs([]any{"x", "y"}, good())
	if err != nil {
		t.Fatal(err)
	}
	if err := testScript.Run(ctx, rdb, []string{"gw:{access}:test", schema.AuditKey(schema.AccessTag)}, args...).Err(); err != nil {
		t.Fatal(err)
	}
	waitRows(t, ch, 26)
	// Replay: the group goes back to the start of the stream; every entry
	// is written again, and the search still sees each once.
	if err := rdb.XGroupSetID(ctx, schema.AuditKey(schema.AuditTag), schema.GroupAudit, "0").Err(); err != nil {
		t.Fatal(err)
	}
	// The projector acknowledges an entry only after ClickHouse took it, so
	// the replay has reached ClickHouse when the group has read to the end
	// and holds nothing pending. (A row count would race ClickHouse's
	// background merges, which may fold the replayed copies at any moment.)
	last, err := rdb.XRevRangeN(ctx, schema.AuditKey(schema.AuditTag), "+", "-", 1).Result()
	if err != nil || len(last) != 1 {
		t.Fatalf("the stream's last entry: %v %v", last, err)
	}
	testenv.Eventually(t, 30*time.Second, "the replay reaching ClickHouse", func() bool {
		groups, err := rdb.XInfoGroups(ctx, schema.AuditKey(schema.AuditTag)).Result()
		if err != nil {
			return false
		}
		for _, g := range groups {
			if g.Name == schema.GroupAudit {
				return g.LastDeliveredID == last[0].ID && g.Pending == 0
			}
		}
		return false
	})
	tests := []struct {
		name     string
		f        Filter
		total    uint64
		firstAt  time.Time
		rowsOnPg int
	}{
		{"everything", Filter{Limit: 10}, 26, at.Add(24 * time.Minute), 10},
		{"page 3", Filter{Limit: 10, Page: 3}, 26, at.Add(4 * time.Minute), 6},
		{"actor by id", Filter{Actor: "u2"}, 12, at.Add(23 * time.Minute), 12},
		{"actor by e-mail, any case", Filter{Actor: "B@Shop.test"}, 12, at.Add(23 * time.Minute), 12},
		{"target", Filter{Target: "order:3"}, 5, at.Add(23 * time.Minute), 5},
		{"action", Filter{Action: "order.refund"}, 14, at.Add(24 * time.Minute), 14},
		{"action prefix", Filter{Action: "user."}, 12, at.Add(23 * time.Minute), 12},
		{"time range", Filter{From: at.Add(5 * time.Minute), To: at.Add(10 * time.Minute)}, 5, at.Add(9 * time.Minute), 5},
		{"one merchant", Filter{AppID: "1001", Limit: 1}, 25, at.Add(23 * time.Minute), 1},
		{"nothing", Filter{Actor: "nobody"}, 0, time.Time{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg, err := s.Search(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if pg.Total != tt.total || len(pg.Rows) != tt.rowsOnPg {
				t.Fatalf("total %d, %d rows; want %d, %d", pg.Total, len(pg.Rows), tt.total, tt.rowsOnPg)
			}
			if len(pg.Rows) > 0 && !pg.Rows[0].At.Equal(tt.firstAt) {
				t.Fatalf("first row at %v, want %v", pg.Rows[0].At, tt.firstAt)
			}
			for i := 1; i < len(pg.Rows); i++ {
				if pg.Rows[i].At.After(pg.Rows[i-1].At) {
					t.Fatal("not newest first")
				}
			}
		})
	}
	pg, _ := s.Search(ctx, Filter{Target: "order:0", Action: "order.refund", Limit: 1})
	if r := pg.Rows[0]; r.Details["reason"] != "asked" || r.ActorEmail != "a@shop.test" || r.Source != "192.0.2.1" || r.Realm != RealmMerchant {
		t.Fatalf("row %+v", r)
	}
	for _, bad := range []Filter{{Limit: MaxLimit + 1}, {Page: -1}, {From: at, To: at}} {
		if _, err := s.Search(ctx, bad); err == nil {
			t.Errorf("filter %+v accepted", bad)
		}
	}
}

// TestExportCSV: every selected entry, newest first, one line each, and a
// value a spreadsheet would run as a formula is defused.
func TestExportCSV(t *testing.T) {
	rdb, ch, s := projected(t)
	ctx := context.Background()
	l := NewLog(rdb)
	for i, reason := range []string{"plain", "=HYPERLINK(\"http://evil.test\")", "+1", "@SUM(A1)"} {
		e := good()
		e.At = at.Add(time.Duration(i) * time.Second)
		e.Details = map[string]string{"reason": reason}
		e.Target = reason
		if _, err := l.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	waitRows(t, ch, 4)
	var buf bytes.Buffer
	if err := s.ExportCSV(ctx, Filter{AppID: "1001", Limit: 1}, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || recs[0][0] != "time" {
		t.Fatalf("%d lines: %v", len(recs), recs)
	}
	wantTargets := []string{"'@SUM(A1)", "'+1", "'=HYPERLINK(\"http://evil.test\")", "plain"}
	for i, w := range wantTargets {
		if recs[i+1][7] != w || recs[i+1][0] != at.Add(time.Duration(3-i)*time.Second).Format(time.RFC3339) {
			t.Errorf("line %d: %v, want target %q", i+1, recs[i+1], w)
		}
	}
}
