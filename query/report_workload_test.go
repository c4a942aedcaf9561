package query

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

// reportWorkload is a random history of orders made by the command side's
// scripts on the real Redis: what Redis holds at the end is the truth every
// report is checked against.
type reportWorkload struct {
	t     *testing.T
	ctx   context.Context
	rng   *rand.Rand
	store *command.Store
	now   time.Time
	ids   map[string][]string      // appid -> its orders
	coids map[string]string        // appid|clientOrderId -> the order it names now
	byID  map[string]*schema.Order // filled by truth()
}

// methodCurrency are the (method, currency) pairs orders are made with; a
// select order becomes wallet_b when the payer chooses.
var methodCurrency = [][2]string{{"wallet_a", "CNY"}, {"wallet_a", "USD"}, {"bdcard", "BDT"}, {"bdcard", "USD"}, {"select", "USD"}}

func newReportWorkload(t *testing.T, rdb redis.UniversalClient, seed uint64) *reportWorkload {
	t.Logf("report workload seed %d", seed)
	return &reportWorkload{t: t, ctx: context.Background(), rng: rand.New(rand.NewPCG(seed, 25)),
		store: command.NewStore(rdb, time.Hour, 30*24*time.Hour), now: time.Now().UTC(),
		ids: map[string][]string{}, coids: map[string]string{}}
}

// create makes one order created at a random time of the last 10 days, a
// third of them with a clientOrderId, some of which are replays: of a live
// order (no new order) or of a finished one (a new order).
func (w *reportWorkload) create(appid string) {
	t := w.t
	at := w.now.Add(-time.Duration(w.rng.Int64N(int64(10 * 24 * time.Hour)))).Truncate(time.Millisecond)
	mc := methodCurrency[w.rng.IntN(len(methodCurrency))]
	coid := ""
	if w.rng.IntN(3) == 0 {
		coid = "c-" + strconv.Itoa(w.rng.IntN(8))
	}
	shard := schema.RandomShard()
	if coid != "" {
		shard = schema.ShardFor(appid, coid)
	}
	o := &schema.Order{ID: schema.NewOrderID(at, shard), AppID: appid, ClientOrderID: coid,
		Amount: schema.Amount(1 + w.rng.IntN(50_000)), Currency: mc[1], Method: schema.Method(mc[0]),
		Status: schema.StatusPending, CreatedAt: at, UpdatedAt: at, Version: 1, Sandbox: w.rng.IntN(4) == 0}
	id, created, err := w.store.Create(w.ctx, o)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if !created {
		if id != w.coids[appid+"|"+coid] {
			t.Fatalf("replay of %s answered %s, the live order is %s", coid, id, w.coids[appid+"|"+coid])
		}
		return
	}
	w.ids[appid] = append(w.ids[appid], o.ID)
	if coid != "" {
		w.coids[appid+"|"+coid] = o.ID
	}
}

// move does something random to an order: ready, pay (late payments of
// failed or cancelled orders included), fail, cancel, expire, the payer's
// choice of method, or a partial or full refund of a paid order. Moves
// that do not apply write nothing.
func (w *reportWorkload) move(id string) {
	t := w.t
	o, err := w.store.Get(w.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	at := o.UpdatedAt.Add(time.Duration(1+w.rng.IntN(3_600_000)) * time.Millisecond)
	switch r := w.rng.IntN(10); {
	case r < 3:
		_, err = w.store.Transition(w.ctx, id, schema.StatusPaid, at)
	case r == 3:
		_, err = w.store.Transition(w.ctx, id, schema.StatusReady, at)
	case r == 4:
		_, err = w.store.Transition(w.ctx, id, schema.StatusFailed, at)
	case r == 5:
		_, err = w.store.Transition(w.ctx, id, schema.StatusCancelled, at)
	case r == 6:
		_, _, err = w.store.Expire(w.ctx, id, w.now)
	case r == 7:
		_, err = w.store.Update(w.ctx, id, []schema.Status{schema.StatusPending, schema.StatusReady}, schema.FMethod,
			string(schema.MethodSelect), at, schema.FMethod, string(schema.MethodWalletB))
	default:
		_, err = w.refund(o, at)
	}
	if err != nil {
		t.Fatalf("move %s: %v", id, err)
	}
}

// refund adds a part of what is left (all of it, one time in three) to a
// paid order's refunded total, as refund_finish.lua does: a new version
// of the order carrying the new total.
func (w *reportWorkload) refund(o *schema.Order, at time.Time) (bool, error) {
	left := o.Amount - o.Refunded
	if o.Status != schema.StatusPaid || left <= 0 {
		return false, nil
	}
	amt := left
	if w.rng.IntN(3) != 0 {
		amt = 1 + schema.Amount(w.rng.Int64N(int64(left)))
	}
	want := ""
	if o.Refunded != 0 {
		want = strconv.FormatInt(int64(o.Refunded), 10)
	}
	return w.store.Update(w.ctx, o.ID, []schema.Status{schema.StatusPaid}, schema.FRefunded, want, at,
		schema.FRefunded, strconv.FormatInt(int64(o.Refunded+amt), 10))
}

// steps makes n creates or moves among the merchants.
func (w *reportWorkload) steps(appids []string, n int) {
	for range n {
		a := appids[w.rng.IntN(len(appids))]
		if ids := w.ids[a]; len(ids) > 0 && w.rng.IntN(3) != 0 {
			w.move(ids[w.rng.IntN(len(ids))])
		} else {
			w.create(a)
		}
	}
}

// truth reads every order back from Redis.
func (w *reportWorkload) truth() {
	w.byID = map[string]*schema.Order{}
	for _, ids := range w.ids {
		for _, id := range ids {
			o, err := w.store.Get(w.ctx, id)
			if err != nil {
				w.t.Fatal(err)
			}
			w.byID[id] = o
		}
	}
}

// killAfterInsert is a projector sink that, on its nth batch, inserts and
// then never returns, as a projector killed -9 between ClickHouse's
// confirmation and the acknowledgement: the rows are in and the entries
// stay pending, so the consumer that claims them inserts them again.
// After release it writes nothing more.
type killAfterInsert struct {
	inner    projector.Sink
	n        int
	mu       sync.Mutex
	calls    int
	stuck    map[string]bool // id@version of the batch in flight when killed
	killed   chan struct{}
	released chan struct{}
}

func (k *killAfterInsert) Insert(ctx context.Context, evs []schema.Event) error {
	k.mu.Lock()
	k.calls++
	call := k.calls
	k.mu.Unlock()
	switch {
	case call < k.n:
		return k.inner.Insert(ctx, evs)
	case call > k.n:
		// The dead process's last flush, after the heir took over and the
		// test is done with both: nothing is written.
		<-k.released
		return nil
	}
	if err := k.inner.Insert(ctx, evs); err != nil {
		return err
	}
	k.stuck = map[string]bool{}
	for i := range evs {
		k.stuck[versionKey(&evs[i].Order)] = true
	}
	close(k.killed)
	<-k.released
	return errors.New("dead")
}

func versionKey(o *schema.Order) string { return o.ID + "@" + strconv.FormatInt(o.Version, 10) }

// recorder is a sink that notes what it inserted.
type recorder struct {
	inner projector.Sink
	mu    sync.Mutex
	seen  map[string]bool
}

func (r *recorder) Insert(ctx context.Context, evs []schema.Event) error {
	if err := r.inner.Insert(ctx, evs); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range evs {
		r.seen[versionKey(&evs[i].Order)] = true
	}
	return nil
}

// runProjector runs a projector over sink until stop is called.
func runProjector(t *testing.T, rdb redis.UniversalClient, sink projector.Sink, cfg projector.Config) (context.CancelFunc, <-chan struct{}) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4}))
	p, err := projector.New(cfg, rdb, sink, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Run(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("projector %s: %v", cfg.Consumer, err)
		}
	}()
	return stop, done
}

// projectWithKill projects what the workload emitted so far with a
// projector killed after its second insert, lets a second projector claim
// the killed one's entries, and runs the workload's second half while it
// projects. It returns when ClickHouse holds every order at its latest
// version and the heir has inserted some of the killed batch again (the
// test would prove nothing otherwise).
func projectWithKill(t *testing.T, rdb redis.UniversalClient, ch driver.Conn, w *reportWorkload, appids []string) {
	t.Helper()
	sink := &killAfterInsert{inner: projector.NewClickHouse(ch), n: 2, killed: make(chan struct{}), released: make(chan struct{})}
	stop1, done1 := runProjector(t, rdb, sink, projector.Config{Consumer: "killed", BatchSize: 40, FlushInterval: 20 * time.Millisecond})
	defer func() { close(sink.released); stop1(); <-done1 }()
	select {
	case <-sink.killed:
	case <-time.After(30 * time.Second):
		t.Fatal("the projector never reached its second insert")
	}
	heir := &recorder{inner: projector.NewClickHouse(ch), seen: map[string]bool{}}
	stop2, done2 := runProjector(t, rdb, heir, projector.Config{Consumer: "heir", BatchSize: 40,
		FlushInterval: 20 * time.Millisecond, ClaimIdle: 100 * time.Millisecond, ClaimEvery: 100 * time.Millisecond})
	defer func() { stop2(); <-done2 }()
	w.steps(appids, 300)
	w.truth()
	waitProjected(t, ch, w, func() (int, bool) {
		heir.mu.Lock()
		defer heir.mu.Unlock()
		again := 0
		for k := range sink.stuck {
			if heir.seen[k] {
				again++
			}
		}
		return again, again > 0
	})
}

// waitProjected waits until ClickHouse holds every order of the workload at
// its latest version and done says the rest of the wait is over too.
func waitProjected(t *testing.T, ch driver.Conn, w *reportWorkload, done func() (int, bool)) {
	t.Helper()
	var want uint64
	for _, o := range w.byID {
		want += uint64(o.Version)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got uint64
		if err := ch.QueryRow(w.ctx, "SELECT sum(v) FROM (SELECT id, max(version) AS v FROM orders GROUP BY id)").Scan(&got); err != nil {
			t.Fatal(err)
		}
		again, ok := done()
		if got == want && ok {
			t.Logf("%d orders projected; %d rows of the killed batch inserted twice", len(w.byID), again)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("ClickHouse holds versions summing to %d, Redis %d; %d rows inserted again", got, want, again)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// accountsFor makes n merchants.
func accountsFor(t *testing.T, rdb redis.UniversalClient, n int) []*merchant.Account {
	t.Helper()
	var out []*merchant.Account
	for i := range n {
		a, err := merchant.NewStore(rdb).Create(context.Background(), merchant.NewAccount{Name: "reports-" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}
