package query

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

// workload is orders of several merchants created and moved by the command
// side's scripts on the real Redis and projected by the real projector:
// what Redis holds is the truth the read model is checked against.
type workload struct {
	accounts []*merchant.Account
	ids      map[string][]string // appid -> its orders, newest first
	orders   map[string]*schema.Order
	events   int // rows the projector writes
}

// runWorkload creates 6, 10, 14... orders for the merchants, moves them at
// random (seeded, logged; many moves do not apply and write nothing), and
// projects everything into ch.
func runWorkload(t *testing.T, rdb redis.UniversalClient, ch driver.Conn, accounts []*merchant.Account) *workload {
	t.Helper()
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	t.Logf("workload seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	store := command.NewStore(rdb, time.Hour, time.Hour)
	w := &workload{accounts: accounts, ids: map[string][]string{}, orders: map[string]*schema.Order{}}
	now := time.Now().UTC().Truncate(time.Second)
	for k, a := range accounts {
		for i := range 6 + 4*k {
			at := now.Add(-time.Duration(i)*time.Minute - time.Duration(k)*time.Second)
			o := &schema.Order{ID: schema.NewOrderID(at, schema.RandomShard()), AppID: a.AppID, Amount: schema.Amount(100 + i),
				Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusPending, CreatedAt: at, UpdatedAt: at, Version: 1}
			if _, created, err := store.Create(ctx, o); err != nil || !created {
				t.Fatalf("create: %v %v", created, err)
			}
			w.ids[a.AppID] = append(w.ids[a.AppID], o.ID)
			w.events++
			for range rng.IntN(3) {
				moved, err := store.Transition(ctx, o.ID, schema.Status(rng.IntN(int(schema.StatusCancelled)+1)), at.Add(time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if moved {
					w.events++
				}
			}
			got, err := store.Get(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			w.orders[o.ID] = got
		}
	}
	project(t, rdb, ch, w.events)
	return w
}

// project runs the projector until ClickHouse holds rows rows.
func project(t *testing.T, rdb redis.UniversalClient, ch driver.Conn, rows int) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	p, err := projector.New(projector.Config{Consumer: "sharded", FlushInterval: 50 * time.Millisecond}, rdb,
		projector.NewClickHouse(ch), prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Run(ctx); err != nil {
			t.Errorf("projector: %v", err)
		}
	}()
	defer func() { stop(); <-done }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var n uint64
		if err := ch.QueryRow(context.Background(), "SELECT count() FROM orders").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if int(n) == rows {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("ClickHouse holds %d rows, %d events emitted", n, rows)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkListing checks, for every merchant, the listing through ch against
// Redis: every page in order with the latest version of each order once,
// the unfiltered and per-status totals, ClickHouse's own count for each
// status equal to the status counters, and the archived order read.
func checkListing(t *testing.T, rdb redis.UniversalClient, ch driver.Conn, w *workload) {
	t.Helper()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	live, chOrders := NewRedisOrders(rdb), NewClickHouseOrders(ch)
	accounts := merchant.NewStore(rdb)
	app := serveOrders(t, merchant.NewDirectory(accounts, log, time.Millisecond),
		Sources{Live: live, Archive: chOrders, Listing: mustListing(t, ListingDeps{Lister: chOrders, Totals: live, Rollups: chOrders})}, log)
	for _, a := range w.accounts {
		e := &listEnv{t: t, app: app, ch: ch, acct: a}
		ids := w.ids[a.AppID]
		checkPages(t, e, w, "", ids)
		for st := schema.StatusPending; st <= schema.StatusCancelled; st++ {
			var want []string
			for _, id := range ids {
				if w.orders[id].Status == st {
					want = append(want, id)
				}
			}
			checkPages(t, e, w, "&status="+st.String(), want)
			n, ok, err := live.StatusTotal(ctx, a.AppID, st)
			chN, cerr := chOrders.Count(ctx, Filter{AppID: a.AppID, Status: &st})
			if err != nil || cerr != nil || !ok || n != len(want) || chN != n {
				t.Fatalf("merchant %s %s: counters %d (ok %v, %v), ClickHouse %d (%v), Redis holds %d", a.AppID, st, n, ok, err, chN, cerr, len(want))
			}
		}
		for _, id := range ids {
			got, err := chOrders.Archived(ctx, a.AppID, id)
			if err != nil || got.Version != w.orders[id].Version || got.Status != w.orders[id].Status {
				t.Fatalf("archived %s: %+v, %v; Redis holds v%d %s", id, got, err, w.orders[id].Version, w.orders[id].Status)
			}
		}
	}
}

// checkPages lists with params in pages of 4 and wants exactly ids, in
// order, each at its latest version, under the total len(ids).
func checkPages(t *testing.T, e *listEnv, w *workload, params string, ids []string) {
	t.Helper()
	var listed []string
	for page := 1; ; page++ {
		status, b, raw := e.get(fmt.Sprintf("action=orders&limit=4&page=%d%s", page, params))
		if status != 200 || b.Data.Total != len(ids) {
			t.Fatalf("merchant %s page %d%s: %d, total %d, want %d: %s", e.acct.AppID, page, params, status, b.Data.Total, len(ids), raw)
		}
		for _, v := range b.Data.Orders {
			o := w.orders[v.PaymentID]
			if o == nil || v.Status != int(o.Status) {
				t.Fatalf("merchant %s%s lists %s as %d; Redis holds %+v", e.acct.AppID, params, v.PaymentID, v.Status, o)
			}
		}
		listed = append(listed, listedIDs(b)...)
		if len(b.Data.Orders) < 4 {
			break
		}
	}
	if !slices.Equal(listed, ids) {
		t.Fatalf("merchant %s%s lists\n%v\nwant\n%v", e.acct.AppID, params, listed, ids)
	}
}

// TestListingMatchesCounters runs the workload on one ClickHouse: the
// per-status counters agree with ClickHouse's count of every status, and
// the listing is exact.
func TestListingMatchesCounters(t *testing.T) {
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	rdb := testenv.Redis(t)
	var accounts []*merchant.Account
	for i := range 3 {
		a, err := merchant.NewStore(rdb).Create(ctx, merchant.NewAccount{Name: fmt.Sprintf("m%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		accounts = append(accounts, a)
	}
	checkListing(t, rdb, ch, runWorkload(t, rdb, ch, accounts))
}

// TestListingOverClickHouseCluster migrates the cluster of `make
// test-cluster`, projects the workload through the Distributed table and
// checks that each merchant's rows sit on exactly the shard the sharding
// key names, with two merchants on every shard, and that the listing read
// through the Distributed table is exact.
func TestListingOverClickHouseCluster(t *testing.T) {
	c := testenv.ClickHouseCluster(t)
	ctx := context.Background()
	if _, err := platform.MigrateCluster(ctx, c.DSN(0), c.Name); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouseCluster(c.DSN(0), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	rdb := testenv.Redis(t)
	accounts, home := merchantsOnEveryShard(t, rdb, ch, len(c.Nodes))
	w := runWorkload(t, rdb, ch, accounts)
	for i, addr := range c.Nodes {
		node, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}, Auth: clickhouse.Auth{Database: c.DB}})
		if err != nil {
			t.Fatal(err)
		}
		defer node.Close()
		for _, a := range accounts {
			var n uint64
			if err := node.QueryRow(ctx, "SELECT uniqExact(id) FROM "+schema.OrdersLocalTable+" WHERE appid = ?", a.AppID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			want := 0
			if home[a.AppID] == i {
				want = len(w.ids[a.AppID])
			}
			if int(n) != want {
				t.Fatalf("node %d (%s) holds %d orders of merchant %s (its shard is node %d), want %d", i, addr, n, a.AppID, home[a.AppID], want)
			}
		}
	}
	checkListing(t, rdb, ch, w)
}

// merchantsOnEveryShard creates merchants until each of the shards is the
// home of two, asking ClickHouse where the sharding key sends each appid
// (shards of weight 1 each: the key modulo their number).
func merchantsOnEveryShard(t *testing.T, rdb redis.UniversalClient, ch driver.Conn, shards int) ([]*merchant.Account, map[string]int) {
	t.Helper()
	ctx := context.Background()
	store := merchant.NewStore(rdb)
	perShard := make([]int, shards)
	home := map[string]int{}
	var out []*merchant.Account
	for i := 0; i < 64 && slices.Min(perShard) < 2; i++ {
		a, err := store.Create(ctx, merchant.NewAccount{Name: fmt.Sprintf("m%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		var s uint64
		if err := ch.QueryRow(ctx, "SELECT toUInt64("+schema.OrderShardingKey+" % ?) FROM (SELECT ? AS appid)", uint64(shards), a.AppID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if perShard[s] < 2 {
			perShard[s]++
			home[a.AppID] = int(s)
			out = append(out, a)
		}
	}
	if slices.Min(perShard) < 2 {
		t.Fatalf("merchants per shard %v after 64 accounts", perShard)
	}
	return out, home
}
