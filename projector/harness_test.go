package projector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// env is a real Redis database and a migrated ClickHouse database of one test.
type env struct {
	t   testing.TB
	rdb *redis.Client
	ch  driver.Conn
	dsn string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	return &env{t: t, rdb: rdb, ch: ch, dsn: dsn}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// testConfig makes claims and flushes fast enough for tests.
func testConfig(name string) Config {
	return Config{Consumer: name, FlushInterval: 50 * time.Millisecond, ClaimIdle: 500 * time.Millisecond,
		ClaimEvery: 200 * time.Millisecond, TrimEvery: 100 * time.Millisecond, BackoffMin: 20 * time.Millisecond,
		BackoffMax: 200 * time.Millisecond}
}

// start runs a projector until the test ends or stop is called.
func (e *env) start(cfg Config, sink Sink) (stop func()) {
	e.t.Helper()
	p, err := New(cfg, e.rdb, sink, prometheus.NewRegistry(), quiet)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Run(ctx); err != nil {
			e.t.Errorf("projector: %v", err)
		}
	}()
	var once atomic.Bool
	stop = func() {
		if once.CompareAndSwap(false, true) {
			cancel()
			<-done
		}
	}
	e.t.Cleanup(stop)
	return stop
}

var orderSeq atomic.Int64

// newOrder is a fresh order of appid on a random shard.
func newOrder(appid string) schema.Order {
	at := time.Now().UTC()
	n := orderSeq.Add(1)
	return schema.Order{ID: schema.NewOrderID(at, schema.RandomShard()), AppID: appid, Amount: schema.Amount(100 + n),
		Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusReady, ClientOrderID: "c-" + strconv.FormatInt(n, 10),
		CreatedAt: at, UpdatedAt: at, Version: 1}
}

// emit appends an event exactly as the command scripts do.
func (e *env) emit(o schema.Order, typ schema.EventType) {
	e.t.Helper()
	shard, _ := schema.ParseOrderID(o.ID)
	err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard),
		Values: schema.EventFields(typ, time.Now(), &o)}).Err()
	if err != nil {
		e.t.Fatal(err)
	}
}

// emitLife emits created, then paid, for each order; returns final states.
func (e *env) emitLife(appid string, n int) map[string]schema.Order {
	e.t.Helper()
	final := map[string]schema.Order{}
	for range n {
		o := newOrder(appid)
		e.emit(o, schema.EventCreated)
		o.Status, o.Version, o.CompletedAt = schema.StatusPaid, 2, time.Now().UTC()
		e.emit(o, schema.EventPaid)
		final[o.ID] = o
	}
	return final
}

// versions reads every row the table holds for appid, without FINAL: how many
// versions landed, by id.
func (e *env) versions(appid string) map[string]int {
	e.t.Helper()
	rows, err := e.ch.Query(context.Background(), "SELECT id FROM orders WHERE appid = ?", appid)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			e.t.Fatal(err)
		}
		out[id]++
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// orderVersion is one version of one order.
type orderVersion struct {
	id      string
	version int64
}

// insertions counts the rows of each order version of appid, without FINAL:
// how many times each event was inserted, less what merges collapsed.
func (e *env) insertions(appid string) map[orderVersion]int {
	e.t.Helper()
	rows, err := e.ch.Query(context.Background(), "SELECT id, version, count() FROM orders WHERE appid = ? GROUP BY id, version", appid)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	out := map[orderVersion]int{}
	for rows.Next() {
		var (
			id   string
			v, n uint64
		)
		if err := rows.Scan(&id, &v, &n); err != nil {
			e.t.Fatal(err)
		}
		out[orderVersion{id, int64(v)}] = int(n)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// total adds up the rows of insertions.
func total(ins map[orderVersion]int) int {
	n := 0
	for _, c := range ins {
		n += c
	}
	return n
}

// listed reads the latest state of every order of appid (FINAL).
func (e *env) listed(appid string) (map[string]schema.Order, int) {
	e.t.Helper()
	rows, err := e.ch.Query(context.Background(), "SELECT "+schema.OrderSelect+" FROM orders FINAL WHERE appid = ?", appid)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]schema.Order{}
	n := 0
	for rows.Next() {
		o, err := schema.ScanOrder(rows)
		if err != nil {
			e.t.Fatal(err)
		}
		out[o.ID] = o
		n++
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out, n
}

// waitListed waits until every order of want is listed once in its final
// state, then checks nothing else is listed.
func (e *env) waitListed(appid string, want map[string]schema.Order, within time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, n := e.listed(appid)
		missing := diff(got, want)
		if missing == "" && n == len(want) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("after %v: %d rows listed for %d orders; %s", within, n, len(want), missing)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func diff(got, want map[string]schema.Order) string {
	var b strings.Builder
	for id, w := range want {
		g, ok := got[id]
		switch {
		case !ok:
			fmt.Fprintf(&b, "missing %s; ", id)
		case g.Status != w.Status || g.Version != w.Version:
			fmt.Fprintf(&b, "%s is %s v%d, want %s v%d; ", id, g.Status, g.Version, w.Status, w.Version)
		}
		if b.Len() > 500 {
			break
		}
	}
	return b.String()
}

// pending counts the group's unacknowledged entries over every shard. Any
// error ends the test, NOGROUP included: every caller asks after a projector
// ran, and a projector creates the group on every shard stream (MKSTREAM)
// before it reads anything, so a missing group or stream means it never got
// that far, not that nothing is pending. Counting an error as 0 would let
// every "all acknowledged" wait pass on a broken Redis.
func (e *env) pending() int64 {
	e.t.Helper()
	var n int64
	for _, s := range schema.AllShards() {
		p, err := e.rdb.XPending(context.Background(), schema.EventsKey(s), Group).Result()
		if err != nil {
			e.t.Fatalf("xpending %s: %v", schema.EventsKey(s), err)
		}
		n += p.Count
	}
	return n
}

func testutilValue(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}
