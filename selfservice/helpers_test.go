package selfservice

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/slotcheck"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// env is two merchants (shop, live; sandbox, a sandbox one) and a third
// (other) whose data must never show, over this test's own database of the
// real Redis, with the use cases under test.
type env struct {
	t         *testing.T
	rdb       *redis.Client
	merchants *merchant.Store
	accounts  *access.Accounts
	svc       *Services
	shop      *merchant.Account
	sandbox   *merchant.Account
	other     *merchant.Account
	payouts   *payout.Store
	engine    *fakeEngine
}

// newEnv builds the use cases; lax lets webhooks and test events reach
// loopback (GATEWAY_WEBHOOK_ALLOW_PRIVATE), as the tests with a receiver
// need; the attack tests run strict, as production does.
func newEnv(t *testing.T, lax bool) *env {
	t.Helper()
	ctx := context.Background()
	rdb := testenv.Redis(t)
	slotcheck.Install(t, rdb)
	t.Cleanup(func() { journaltest.Check(t, rdb) }) // whatever moved money kept the journal's invariants
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := access.New(access.Defaults(), rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	store := merchant.NewStore(rdb)
	e := &env{t: t, rdb: rdb, merchants: store, accounts: accounts}
	for _, m := range []struct {
		p       **merchant.Account
		name    string
		sandbox bool
	}{{&e.shop, "shop", false}, {&e.sandbox, "sandbox shop", true}, {&e.other, "other shop", false}} {
		if *m.p, err = store.Create(ctx, merchant.NewAccount{Name: m.name, Sandbox: m.sandbox}); err != nil {
			t.Fatal(err)
		}
	}
	webhooks, err := dispatcher.NewMerchantDeliveries(rdb)
	if err != nil {
		t.Fatal(err)
	}
	dcfg := dispatcher.Defaults()
	dcfg.AllowPrivate, dcfg.Timeout = lax, 3*time.Second
	tester, err := dispatcher.NewTester(dcfg, dispatcher.AccountKeys(store.Get, store.EnsureWebhookSecret))
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pcfg := payout.Defaults()
	pcfg.CoolingOff = 0 // the tests pay to what they add at once
	if e.payouts, err = payout.New(pcfg, rdb, j, nil, nil); err != nil {
		t.Fatal(err)
	}
	endpoints, err := events.NewStore(events.Defaults(), rdb, dispatcher.NewDestinations(lax), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.engine = &fakeEngine{}
	e.svc, err = New(Defaults(), Deps{Redis: rdb, Merchants: store, Accounts: accounts, Webhooks: webhooks,
		Tester: tester, Destinations: dispatcher.NewDestinations(lax), Journal: j, Payouts: e.payouts,
		Endpoints: endpoints, EndpointDeliveries: e.engine, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// who is a person of appid with role, acting from a documentation address.
func who(appid string, role access.Role) access.Actor {
	return access.ActorOf(&access.Session{UserID: "u-" + string(role) + "-" + appid, Realm: access.RealmMerchant, Role: role,
		AppID: appid, Email: string(role) + "@" + appid + ".test"}, "198.51.100.7")
}

// operator is an operator's session: worthless on the merchant console.
func operator(appid string) access.Actor {
	return access.ActorOf(&access.Session{UserID: "op1", Realm: access.RealmOperator, Role: access.RoleAdmin, AppID: appid,
		Email: "admin@gateway.test"}, "198.51.100.8")
}

// user creates a user of appid (setup not completed: the use cases need none).
func (e *env) user(appid, email string, role access.Role) *access.Account {
	e.t.Helper()
	u, _, err := access.NewTeam(e.accounts).Create(context.Background(), access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: appid, Email: email, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// deadDelivery stores a dead-lettered paid delivery of appid's order as the
// dispatcher's scripts leave one (state hash, merchant indexes, attempt log),
// paid at.
func (e *env) deadDelivery(appid string, at time.Time, lastErr string) string {
	e.t.Helper()
	ctx := context.Background()
	shard := schema.RandomShard()
	id := schema.NewOrderID(at, shard)
	_, err := e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.WebhookKey(shard, id), "st", "dead", "n", 3, "url", "http://shop.example/hook",
			"host", "shop.example:80", "appid", appid, "p", "amount=1.00&paymentId="+id, "paid", at.UnixMilli())
		p.ZAdd(ctx, schema.WebhookMerchantKey(shard, appid), redis.Z{Score: float64(at.UnixMilli()), Member: id})
		p.ZAdd(ctx, schema.WebhookMerchantAllKey(shard, appid), redis.Z{Score: float64(at.UnixMilli()), Member: id})
		p.RPush(ctx, schema.WebhookLogKey(shard, id), `{"at":"`+schema.WireTime(at)+`","attempt":3,"status":0,"error":"`+lastErr+`","body":""}`)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// deliveryState is a delivery's st and man fields.
func (e *env) deliveryState(id string) string {
	e.t.Helper()
	shard, _ := schema.ParseOrderID(id)
	v := e.rdb.HMGet(context.Background(), schema.WebhookKey(shard, id), "st", "man").Val()
	st, _ := v[0].(string)
	man, _ := v[1].(string)
	return st + "/" + man
}

// auditCount is how many entries every audit stream holds together.
func (e *env) auditCount() int64 {
	e.t.Helper()
	var n int64
	for _, s := range schema.AuditStreams() {
		n += e.rdb.XLen(context.Background(), s).Val()
	}
	return n
}

// auditEntries is every audit entry's fields, every stream.
func (e *env) auditEntries() []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, s := range schema.AuditStreams() {
		for _, m := range e.rdb.XRange(context.Background(), s, "-", "+").Val() {
			out = append(out, m.Values)
		}
	}
	return out
}

// fingerprint is everything a refused write must leave as it was: the
// merchants' accounts, users, policies, deliveries, balances and the audit
// log, as one comparable string.
func (e *env) fingerprint() string {
	e.t.Helper()
	ctx := context.Background()
	var parts []string
	keys, err := e.rdb.Keys(ctx, "gw:*").Result()
	if err != nil {
		e.t.Fatal(err)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(k, ":rl:") || strings.Contains(k, ":version") {
			continue // the limiter's buckets and the cache version move on reads
		}
		raw, err := e.rdb.Dump(ctx, k).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			e.t.Fatal(err)
		}
		parts = append(parts, k+"="+raw)
	}
	return strings.Join(parts, "\n")
}

// receiver is a merchant endpoint on loopback that counts its requests.
type receiver struct {
	*httptest.Server
	hits atomic.Int32
}

func newReceiver(t *testing.T, status int, body string) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r.hits.Add(1)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(r.Close)
	return r
}

// kindOf is the platform kind of err, "" when it has none.
func kindOf(err error) platform.Kind {
	var pe *platform.Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	var rl *platform.RateLimited
	if errors.As(err, &rl) {
		return platform.KindRateLimited
	}
	return ""
}

// rand is a short random name.
func rand() string { return strings.ToLower(crand.Text()[:10]) }

// auditOf is every audit entry of action.
func (e *env) auditOf(action string) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, a := range e.auditEntries() {
		if a["action"] == action {
			out = append(out, a)
		}
	}
	return out
}

// auditStrings is every audit entry printed.
func (e *env) auditStrings() []string {
	var out []string
	for _, a := range e.auditEntries() {
		out = append(out, fmt.Sprint(a))
	}
	return out
}

// project copies the audit streams into ClickHouse until n entries are
// there (audit.Projector, as the projector role runs it).
func project(t *testing.T, e *env, ch driver.Conn, n uint64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := audit.NewProjector(audit.ProjectorConfig{Wait: 50 * time.Millisecond, ClaimIdle: time.Hour}, e.rdb, ch,
		prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("projector: %v", err)
		}
	}()
	testenv.Eventually(t, 30*time.Second, "audit entries in ClickHouse", func() bool {
		var got uint64
		return ch.QueryRow(context.Background(), "SELECT uniqExact(id) FROM audit_log").Scan(&got) == nil && got >= n
	})
}
