package admin

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	readmodel "github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/checkout"
	"github.com/paygate/gateway/web/frame/frametest"
	"github.com/paygate/gateway/web/orderview"
)

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

// env is the operator console over this test's database of the real
// Redis: one operator of each role, a merchant with an owner, and a USDT
// order waiting for an administrator.
type env struct {
	app      *fiber.App
	rdb      *redis.Client
	acc      *access.Accounts
	clock    *clock
	secrets  map[string]string // e-mail → TOTP secret
	appid    string
	review   string // order waiting for an administrator
	mismatch string // order with a wrong-amount notification
	dead     string // order whose webhook died
	store    *command.Store
	other    string // an order of another merchant
	exc      *operator.Exceptions
	money    *operator.Money
	request  string // an adjustment request made with the CLI, awaiting an admin
	payouts  *payout.Store
	ch       driver.Conn // the test's ClickHouse, migrated
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	rdb := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	ck := &clock{t: time.Now().UTC().Truncate(30 * time.Second)}
	cfg := access.Defaults()
	cfg.Clock = ck.now
	cfg.PerIP = platform.Limit{PerSecond: 100, Burst: 100}
	acc, err := access.New(cfg, rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{rdb: rdb, acc: acc, clock: ck, secrets: map[string]string{}}
	mstore := merchant.NewStore(rdb)
	m, err := mstore.Create(ctx, merchant.NewAccount{Name: "Tea Shop", Callback: "http://127.0.0.1:9/cb"})
	if err != nil {
		t.Fatal(err)
	}
	e.appid = m.AppID
	for email, role := range map[string]access.Role{"ann@ops.test": access.RoleAdmin, "sam@ops.test": access.RoleSupport, "al@ops.test": access.RoleAuditor} {
		e.secrets[email], _ = frametest.Enrol(t, acc, access.NewUser{Realm: access.RealmOperator, Email: email, Role: role}, ck.now())
	}
	e.secrets["owner@shop.test"], _ = frametest.Enrol(t, acc, access.NewUser{Realm: access.RealmMerchant, AppID: m.AppID,
		Email: "owner@shop.test", Role: access.RoleOwner}, ck.now())
	ck.add(30 * time.Second)
	e.store = command.NewStore(rdb, time.Hour, time.Hour)
	e.review = waitingReview(t, e.store, m.AppID)
	// A default fee for the Fees page to list and its forms to clear.
	if err := rdb.HSet(ctx, schema.FeesKey, schema.FeeField("", schema.MethodWalletA, "CNY"), "100:0:0:0").Err(); err != nil {
		t.Fatal(err)
	}
	e.mismatch, e.dead = fixture.Exceptions(t, rdb, e.store, m.AppID)
	logs := audit.NewLog(rdb)
	rv := command.NewUSDTReview(e.store)
	backlog := command.NewUSDTBacklog(e.store)
	exc, err := operator.NewExceptions(operator.ExceptionsConfig{}, rdb, e.store, backlog, dispatcher.NewWebhooks(rdb), logs)
	if err != nil {
		t.Fatal(err)
	}
	e.exc = exc
	ips, _ := platform.NewClientIP(nil)
	search, ch := projected(t, rdb, log)
	e.ch = ch
	e.other = otherMerchantsOrder(t, mstore, e.store)
	live, arch := readmodel.NewRedisOrders(rdb), readmodel.NewClickHouseOrders(ch)
	listing, err := readmodel.NewListing(readmodel.ListingDeps{Lister: storeLister{store: e.store, ids: []string{e.review, e.mismatch, e.dead, e.other}}})
	if err != nil {
		t.Fatal(err)
	}
	view, err := orderview.New(orderview.Config{}, orderview.Reads{Live: live, Archive: arch, Listing: listing, Reports: arch,
		Webhooks: live, Refunds: live, Notifications: live}, nil)
	if err != nil {
		t.Fatal(err)
	}
	settings, err := operator.NewSettings(operator.SettingsDefaults(), fx.NewStore(rdb), usdt.NewStore(rdb), logs)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.New(journal.Config{}, rdb, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	if e.money, err = operator.NewMoney(operator.MoneyConfig{ApprovalAbove: 100000}, rdb, mstore, j, logs, log); err != nil {
		t.Fatal(err)
	}
	pcfg := payout.Defaults()
	pcfg.CoolingOff = 0
	pcfg.CheckerWindow = 12 * time.Hour // not the default: the page must say this one
	if e.payouts, err = payout.New(pcfg, rdb, j, nil, log); err != nil {
		t.Fatal(err)
	}
	names, err := checkout.PayerNames(nil)
	if err != nil {
		t.Fatal(err)
	}
	payouts, err := payout.New(payout.Defaults(), rdb, j, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	e.money.WithPayouts(payouts)
	c, err := New(Config{MethodNames: names}, Deps{Money: e.money, Income: readmodel.NewStatements(ch), Audit: search, View: view, Accounts: acc, ClientIP: ips, Merchants: operator.NewMerchants(mstore, logs, dispatcher.NewDestinations(true)).WithJournal(j), Store: mstore,
		USDTReviews: operator.NewUSDTReviews(rv, backlog, logs), Exceptions: exc, Settings: settings,
		Health: operator.NewHealth(rdb), Fees: operator.NewFees(fees.NewStore(rdb)), Orders: testMethods{},
		Channels: operator.NewChannels(rdb, testChannels{}, mstore), Payouts: operator.NewPayouts(e.payouts, nil),
		Recon: newRecon(t, rdb, ch, j, logs), EpayTypes: epayTypes(t, rdb, logs)}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	e.app = NewApp(log, nil, c)
	req, err := e.money.Adjust(ctx, access.Actor{ID: "root", Realm: audit.RealmCLI, Source: "cli"},
		operator.AdjustInput{AppID: m.AppID, Amount: "2000.00", Currency: "USD", Reason: "opening balance from the old system"})
	if err != nil || req.State != operator.AdjPending {
		t.Fatalf("request: %+v, %v", req, err)
	}
	e.request = req.ID
	return e
}

// waitingReview is a usdt_direct order whose transfer waits for an
// administrator.
func waitingReview(t *testing.T, store *command.Store, appid string) string {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: appid, Sandbox: true, Amount: 100_00,
		Currency: "USD", Method: schema.MethodUSDTDirect, Status: schema.StatusReady, PayableAmount: "100.000123",
		NextAction: schema.NextUSDTDirectPay, Network: "TRC20", CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := store.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	hash := strings.Repeat("e5", 32)
	if ok, err := store.SubmitUSDTTx(ctx, o.ID, "TRC20", hash, now, now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("submit: %v %v", ok, err)
	}
	if _, err := command.NewUSDTReview(store).Escalate(ctx, o.ID, hash, usdt.Decision{By: "reviewer", At: now, Outcome: usdt.OutcomeWaiting,
		Reason: "not_found", Evidence: "chain: no such transaction yet"}); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// session logs email in (its realm's accounts) and moves the clock past
// the TOTP step it spent.
func (e *env) session(t *testing.T, realm access.Realm, email string) *access.Session {
	t.Helper()
	s := frametest.Session(t, e.acc, realm, email, frametest.Code(t, e.secrets[email], e.clock.now()))
	e.clock.add(30 * time.Second)
	return s
}

func (e *env) do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	res, err := e.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func get(path string, s *access.Session) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if s != nil {
		req.AddCookie(&http.Cookie{Name: "gw_admin", Value: s.ID})
	}
	return req
}

func post(path string, s *access.Session, vals url.Values) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if s != nil {
		req.AddCookie(&http.Cookie{Name: "gw_admin", Value: s.ID})
	}
	return req
}

// state is every key outside the accounts' own (sessions are marked used
// by every request) and the rate limits, with its value (an audit stream:
// its length), and the audit streams' lengths: what a refused form must
// leave as it was.
func (e *env) state(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	keys, err := e.rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		if (strings.HasPrefix(k, schema.AccessPrefix) && !strings.HasSuffix(k, ":audit")) || strings.HasPrefix(k, "gw:rl:") {
			continue
		}
		v, _ := e.rdb.Dump(ctx, k).Result()
		if strings.HasSuffix(k, ":audit") {
			// The projector's group reads these as the test runs: what
			// counts is that no entry was appended.
			n := e.rdb.XLen(ctx, k).Val()
			if n == 0 { // made empty by the projector's group
				continue
			}
			v = strconv.FormatInt(n, 10)
		}
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}

// projected runs the audit projector over this test's Redis into a
// migrated ClickHouse database until the test ends, and answers the search.
func projected(t *testing.T, rdb *redis.Client, log *slog.Logger) (*audit.Searcher, driver.Conn) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p, err := audit.NewProjector(audit.ProjectorConfig{Wait: 50 * time.Millisecond, ClaimIdle: time.Hour}, rdb, ch, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = ch.Close()
	})
	return audit.NewSearcher(ch), ch
}

// storeLister lists this test's orders from Redis as the ClickHouse read
// model would (by merchant and status): no projector runs here, so the
// orders never reach ClickHouse's orders table.
type storeLister struct {
	store *command.Store
	ids   []string
}

func (l storeLister) Page(ctx context.Context, f readmodel.Filter) ([]schema.Order, error) {
	var out []schema.Order
	for _, id := range l.ids {
		o, err := l.store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if o.AppID == f.AppID && (f.Status == nil || o.Status == *f.Status) {
			out = append(out, *o)
		}
	}
	return out, nil
}

func (l storeLister) Count(ctx context.Context, f readmodel.Filter) (int, error) {
	rows, err := l.Page(ctx, f)
	return len(rows), err
}
