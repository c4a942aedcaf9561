package ledger

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

var paidAt = time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)

// terms is a fixed set of merchants' terms (the Directory's part).
type terms map[string]merchant.Terms

func (ts terms) Lookup(_ context.Context, appid string) (*merchant.Account, error) {
	t, ok := ts[appid]
	if !ok {
		return nil, merchant.ErrNotFound
	}
	return &merchant.Account{AppID: appid, Terms: t}, nil
}

type env struct {
	t   *testing.T
	rdb redis.UniversalClient
	j   *journal.Journal
	acc terms
	ids int
}

// newEnv is a real Redis database of the test's own; the journal's
// invariants are checked when the test ends.
func newEnv(t *testing.T) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	return &env{t: t, rdb: rdb, j: j, acc: terms{"3001": merchant.DefaultTerms(), "3002": {Instant: true}}}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fastConfig(name string) Config {
	return Config{Consumer: name, Batch: 200, Block: 20 * time.Millisecond, ClaimIdle: 50 * time.Millisecond,
		ClaimEvery: 20 * time.Millisecond, Now: func() time.Time { return paidAt }}
}

func (e *env) poster(name string, reg *prometheus.Registry) *Poster {
	e.t.Helper()
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	p, err := NewPoster(fastConfig(name), e.rdb, e.j, e.acc, reg, quiet())
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// run runs p until the test ends or stop is called.
func run(t *testing.T, p *Poster) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = p.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

// order is a paid order of appid, on the shards in turn.
func (e *env) order(appid string, amt schema.Amount, fee string) *schema.Order {
	e.ids++
	return &schema.Order{ID: schema.NewOrderID(paidAt, schema.Shard(e.ids%schema.NumShards)),
		AppID: appid, Amount: amt, Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusPaid, Fee: fee,
		CreatedAt: paidAt.Add(-time.Minute), UpdatedAt: paidAt, CompletedAt: paidAt, Version: 3}
}

// emit writes an event of o to its shard's stream, as the scripts do.
func (e *env) emit(typ schema.EventType, o *schema.Order, r *schema.Refund) {
	e.t.Helper()
	s, ok := schema.ParseOrderID(o.ID)
	if !ok {
		e.t.Fatalf("order id %q", o.ID)
	}
	f := schema.EventFields(typ, o.UpdatedAt, o)
	if r != nil {
		raw := fmt.Sprintf(`{"id":%q,"oid":%q,"amt":"%d","cur":%q,"st":%q,"kind":%q,"payer":%q,"merchant":%q,"ct":"%d","ut":"%d"}`,
			r.ID, r.OrderID, int64(r.Amount), r.Currency, r.Status, r.Kind, r.Payer, r.Merchant, r.CreatedMs, r.UpdatedMs)
		f = append(f, schema.EvRefund, raw)
	}
	if err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(s), Values: f}).Err(); err != nil {
		e.t.Fatal(err)
	}
}

// caughtUp waits until the ledger group acknowledged every entry.
func (e *env) caughtUp() {
	e.t.Helper()
	testenv.Eventually(e.t, 20*time.Second, "the ledger group acknowledges every event", func() bool {
		lag := GroupLag(context.Background(), e.rdb)
		for _, n := range lag {
			if n != 0 {
				return false
			}
		}
		return len(lag) > 0
	})
}

// entries is every journal entry, by key.
func (e *env) entries() map[string][]journal.Entry {
	e.t.Helper()
	out := map[string][]journal.Entry{}
	for _, s := range schema.AllShards() {
		es, err := e.j.Entries(context.Background(), s, "", 1_000_000)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, en := range es {
			out[en.Key] = append(out[en.Key], en)
		}
	}
	return out
}

func (e *env) balance(appid string) journal.Balance {
	e.t.Helper()
	b, err := e.j.Balance(context.Background(), appid, "USD")
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

func counter(t *testing.T, reg *prometheus.Registry, name, kind, result string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == kind && labels["result"] == result {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

var _ = strings.Contains
var _ = testutil.ToFloat64
