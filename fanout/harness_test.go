package fanout

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// call is one ScheduleEvent the fake engine took.
type call struct {
	appid  string
	typ    events.Type
	id     string
	object string
	eps    string // endpoint ids, sorted, comma-joined
}

// fakeScheduler records what it is asked to schedule; fail, when set,
// refuses an event (the engine's Redis failing).
type fakeScheduler struct {
	mu    sync.Mutex
	calls []call
	tried map[string]int
	fail  func(ev events.Event, tries int) error
}

func (s *fakeScheduler) ScheduleEvent(_ context.Context, appid string, ev events.Event, object string, eps []events.Endpoint) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tried == nil {
		s.tried = map[string]int{}
	}
	s.tried[ev.ID]++
	if s.fail != nil {
		if err := s.fail(ev, s.tried[ev.ID]); err != nil {
			return err
		}
	}
	ids := make([]string, len(eps))
	for i, ep := range eps {
		ids[i] = ep.ID
	}
	slices.Sort(ids)
	s.calls = append(s.calls, call{appid: appid, typ: ev.Type, id: ev.ID, object: object, eps: strings.Join(ids, ",")})
	return nil
}

func (s *fakeScheduler) taken() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *fakeScheduler) tries(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tried[id]
}

type anyURL struct{}

func (anyURL) Check(context.Context, string) error { return nil }

type env struct {
	t     *testing.T
	rdb   redis.UniversalClient
	store *events.Store
	j     *journal.Journal
	sched *fakeScheduler
	f     *FanOut
}

func newEnv(t testing.TB, claimIdle time.Duration) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := events.NewStore(events.Defaults(), rdb, anyURL{}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.New(journal.Config{}, rdb, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{rdb: rdb, store: store, j: j, sched: &fakeScheduler{}}
	cfg := Defaults()
	cfg.BaseURL, cfg.Consumer, cfg.Block, cfg.ClaimIdle = "https://pay.example", "fanout-test", 20*time.Millisecond, claimIdle
	if e.f, err = New(cfg, rdb, store, j, e.sched, prometheus.NewRegistry(), log); err != nil {
		t.Fatal(err)
	}
	if err := e.f.EnsureGroups(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs the fan-out until the test ends.
func (e *env) run(t testing.TB) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.f.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// endpoint adds an enabled endpoint of appid taking types ("*" for all).
func (e *env) endpoint(t testing.TB, appid, types string) string {
	t.Helper()
	ts, err := events.ParseTypes(types)
	if err != nil {
		t.Fatal(err)
	}
	who := audit.Entry{At: time.Now(), ActorID: "u1", Realm: audit.RealmMerchant, Role: "developer", Source: "127.0.0.1"}
	ep, err := e.store.Add(context.Background(), events.Endpoint{AppID: appid, URL: "https://hooks.example/" + appid,
		Types: ts, Enabled: true}, who)
	if err != nil {
		t.Fatal(err)
	}
	return ep.ID
}

var at = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// orderEntry writes an order's entry as the scripts do; it answers the
// order's id.
func (e *env) orderEntry(t testing.TB, appid string, typ schema.EventType, mut func(*schema.Order), extra ...any) string {
	t.Helper()
	o := schema.Order{ID: schema.NewOrderID(at, schema.Shard(len(appid)%schema.NumShards)), AppID: appid, Amount: 10050,
		Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusReady, CreatedAt: at, UpdatedAt: at, Version: 2}
	if mut != nil {
		mut(&o)
	}
	sh, _ := schema.ParseOrderID(o.ID)
	vals := append(schema.EventFields(typ, at, &o), extra...)
	if err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(sh), Values: vals}).Err(); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// payoutEntry writes a payout's move as move.lua does.
func (e *env) payoutEntry(t testing.TB, appid, id, state string) {
	t.Helper()
	ms := strconv.FormatInt(at.UnixMilli(), 10)
	err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.PayoutEventsKey(schema.HomeShard(appid)),
		Values: []any{"type", "payout." + state, "at", ms, "id", id, "appid", appid, "dest", appid + "-d", "kind", "bank",
			"cur", "USD", "amt", "6000", "fee", "100", "st", state, "by", "api", "at", ms, "done", ms}}).Err()
	if err != nil {
		t.Fatal(err)
	}
}

// settle posts a payment and its settlement through the journal, whose
// stream is the settlement's entry.
func (e *env) settle(t testing.TB, appid, ref string) {
	t.Helper()
	ctx := context.Background()
	m := func(b string) string { return journal.Merchant(appid, b) }
	for _, tx := range []journal.Tx{
		{Key: "payment:" + ref, Kind: journal.KindPayment, AppID: appid, Ref: ref, At: at, Postings: []journal.Posting{
			{Account: journal.Receivable("x"), Currency: "USD", Amount: -10000}, {Account: m(journal.Pending), Currency: "USD", Amount: 10000}}},
		{Key: "settlement:" + ref, Kind: journal.KindSettlement, AppID: appid, Ref: ref, At: at, Postings: []journal.Posting{
			{Account: m(journal.Pending), Currency: "USD", Amount: -10000}, {Account: m(journal.Available), Currency: "USD", Amount: 10000}}},
	} {
		if r, err := e.j.Post(ctx, tx); err != nil || r.Outcome != journal.Posted {
			t.Fatalf("post %s: %+v %v", tx.Key, r, err)
		}
	}
}

// pending is how many entries the group holds unacknowledged, everywhere.
func (e *env) pending(t testing.TB) int64 {
	t.Helper()
	var n int64
	for _, s := range schema.AllShards() {
		for _, k := range []string{schema.EventsKey(s), schema.PayoutEventsKey(s), schema.JournalKey(s)} {
			p, err := e.rdb.XPending(context.Background(), k, schema.GroupEvents).Result()
			if err != nil {
				t.Fatalf("xpending %s: %v", k, err)
			}
			n += p.Count
		}
	}
	return n
}

func (c call) String() string { return fmt.Sprintf("%s %s %s [%s]", c.appid, c.typ, c.object, c.eps) }

func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, within, what, cond)
}
