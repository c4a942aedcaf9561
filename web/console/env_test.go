package console

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/checkout"
	"github.com/paygate/gateway/web/frame/frametest"
	"github.com/paygate/gateway/web/orderview"
	"github.com/paygate/gateway/web/server"
)

// clock is the accounts' time, moved by hand: sessions expire by it and
// TOTP codes are made for it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one console on 127.0.0.1:0 over the real Redis (accounts,
// sessions, login limits, audit log, event streams) and the fake read
// models and command side of fake_test.go.
type env struct {
	base   string // http://127.0.0.1:PORT/console
	rdb    redis.UniversalClient
	acc    *access.Accounts
	clock  *clock
	store  *store
	reg    *prometheus.Registry
	hub    *Hub
	logs   *logBuf
	shop   string
	other  string
	users  map[access.Role]string // role → e-mail of the shop's user
	secret map[string]string      // e-mail → TOTP secret
	orders map[string]string      // name → order id
}

// logBuf keeps everything the console and accounts logged, for the test
// that no secret reaches a log line.
type logBuf struct {
	mu sync.Mutex
	b  []byte
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *logBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return string(l.b) }

func newEnv(t *testing.T) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	e := &env{rdb: rdb, clock: &clock{t: time.Now().UTC().Truncate(30 * time.Second)}, store: newStore(rdb), reg: prometheus.NewRegistry(),
		logs: &logBuf{}, users: map[access.Role]string{}, secret: map[string]string{}, orders: map[string]string{}}
	log := slog.New(slog.NewTextHandler(io.MultiWriter(e.logs, io.Discard), &slog.HandlerOptions{Level: slog.LevelDebug}))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	cfg := access.Defaults()
	cfg.Clock = e.clock.now
	if e.acc, err = access.New(cfg, rdb, merchant.NewPasswordHasher(), lim, e.reg, log); err != nil {
		t.Fatal(err)
	}
	ms := merchant.NewStore(rdb)
	for _, to := range []*string{&e.shop, &e.other} {
		m, err := ms.Create(context.Background(), merchant.NewAccount{Name: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		*to = m.AppID
	}
	e.seedOrders()
	hub, err := NewHub(HubConfig{Every: 50 * time.Millisecond}, rdb, e.acc, e.reg, log)
	if err != nil {
		t.Fatal(err)
	}
	e.hub = hub
	ips, _ := platform.NewClientIP(nil)
	listing, err := query.NewListing(query.ListingDeps{Lister: e.store})
	if err != nil {
		t.Fatal(err)
	}
	r := orderview.Reads{Live: e.store, Listing: listing, Reports: e.store, Webhooks: e.store, Refunds: e.store, Notifications: e.store}
	names, err := checkout.PayerNames(checkout.MethodNames{"en": {schema.MethodBDCard: "Visa / Mastercard"}})
	if err != nil {
		t.Fatal(err)
	}
	con, err := New(Config{MethodNames: names}, Deps{Auth: e.acc, ClientIP: ips, Reads: r, Actions: testActions{command.NewMerchantOrders(e.store, e.store, audit.NewLog(rdb), nil), e.store}, Audit: audit.NewLog(rdb), Live: hub}, e.reg, log)
	if err != nil {
		t.Fatal(err)
	}
	app := server.NewApp(log, e.reg, nil)
	con.Register(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { hub.Run(ctx); close(done) }()
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { cancel(); <-done; _ = app.ShutdownWithTimeout(time.Second) })
	e.base = "http://" + ln.Addr().String() + Base
	for _, role := range access.Roles(access.RealmMerchant) {
		e.users[role] = string(role) + "@shop.test"
		e.enrol(t, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop, Email: e.users[role], Role: role})
	}
	e.enrol(t, access.NewUser{Realm: access.RealmMerchant, AppID: e.other, Email: "owner@other.test", Role: access.RoleOwner})
	e.clock.add(30 * time.Second) // the setups spent the current step
	return e
}

func (e *env) enrol(t *testing.T, nu access.NewUser) {
	t.Helper()
	secret, _ := frametest.Enrol(t, e.acc, nu, e.clock.now())
	e.secret[nu.Email] = secret
}

// code is the TOTP code of the account at the clock's now.
func (e *env) code(t *testing.T, email string) string {
	t.Helper()
	return frametest.Code(t, e.secret[email], e.clock.now())
}

// seedOrders gives the shop a paid card order with a notification, a
// refund-able amount and webhook attempts, an open order, a sandbox order
// and a failed one; the other merchant one paid order.
func (e *env) seedOrders() {
	// Half a second past the second: an attempt's time, kept to the second,
	// then reads as older than the event it carries.
	now := time.Now().UTC().Truncate(time.Second).Add(-500 * time.Millisecond)
	mk := func(name, appid string, st schema.Status, m schema.Method, amount schema.Amount, cur string, sandbox bool, age time.Duration) *schema.Order {
		at := now.Add(-age)
		o := &schema.Order{ID: schema.NewOrderID(at, schema.RandomShard()), AppID: appid, Status: st, Method: m, Amount: amount, Currency: cur,
			ClientOrderID: "co-" + name, CustomerEmail: name + "@payer.test", Description: "Tea for " + name, Sandbox: sandbox, Lang: "en",
			NotifyURL: "http://127.0.0.1:9/hook", CreatedAt: at, UpdatedAt: at.Add(time.Minute), ProviderRef: "ref-" + name, Version: 3}
		if st == schema.StatusPaid {
			o.CompletedAt = at.Add(2 * time.Minute)
		}
		e.store.add(o)
		e.orders[name] = o.ID
		return o
	}
	paid := mk("paid", e.shop, schema.StatusPaid, schema.Method("wallet_a"), 12050, "CNY", false, 3*time.Hour)
	mk("open", e.shop, schema.StatusReady, schema.Method("wallet_b"), 9900, "CNY", false, 2*time.Hour)
	mk("sandbox", e.shop, schema.StatusReady, schema.Method("wallet_a"), 500, "CNY", true, time.Hour)
	mk("failed", e.shop, schema.StatusFailed, schema.Method("bdcard"), 2000, "USD", false, 26*time.Hour)
	mk("paid2", e.shop, schema.StatusPaid, schema.Method("bdcard"), 4500, "USD", false, 50*time.Hour)
	mk("theirs", e.other, schema.StatusPaid, schema.Method("wallet_a"), 777, "CNY", false, time.Hour)
	e.store.notes[paid.ID] = []schema.NotificationRecord{{At: paid.CreatedAt.Add(110 * time.Second), Provider: "wallet_a", Mode: "callback",
		OrderID: paid.ID, Outcome: "paid", Paid: "120.50 CNY", Verdict: schema.VerdictApplied, Moved: true},
		// A channel that did not answer at create: the merchant never
		// learns which account it was.
		{At: paid.CreatedAt.Add(time.Second), Provider: "wallet_a", Channel: "acct-7f3a", Mode: schema.ModeInit,
			OrderID: paid.ID, Verdict: schema.VerdictInitFailed, Detail: "http_5xx"}}
	e.store.hooks[paid.ID+"/"+paid.ID] = []schema.WebhookAttempt{
		{At: schema.WireTime(paid.CompletedAt.Add(11 * time.Second)), Attempt: 2, Status: 200, Body: "success", Success: true},
		{At: schema.WireTime(paid.CompletedAt), Attempt: 1, Status: 500, Error: "status 500", Body: "oops"}}
	// 7.00 of it refunded, its webhook acknowledged in the refund's second.
	refunded := paid.CompletedAt.Add(time.Hour)
	paid.Refunded, paid.RefundReserved = 700, 700
	e.store.add(paid)
	e.store.refunds[paid.ID] = []schema.Refund{{ID: "R" + paid.ID[1:], OrderID: paid.ID, Amount: 700, Currency: "CNY", Reason: "damaged goods",
		Status: schema.RefundSucceeded, Kind: schema.RefundKindProvider, CreatedMs: refunded.UnixMilli(), UpdatedMs: refunded.UnixMilli()}}
	e.store.hooks[paid.ID+"/R"+paid.ID[1:]] = []schema.WebhookAttempt{
		{At: schema.WireTime(refunded), Attempt: 1, Status: 200, Body: "success", Success: true}}
}
