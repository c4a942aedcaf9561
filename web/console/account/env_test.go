package account

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	statements "github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/selfservice"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/frame/frametest"
)

// The console's own part in these tests: a brand and a home page, as the
// merchant console gives them; the pages come in through Extend.
var consoleTemplates = fstest.MapFS{
	"home.html": {Data: []byte(`{{define "content"}}<h1>{{.L.Msg.test_home}}</h1>{{end}}`)},
}

func consoleLocales() fstest.MapFS {
	m := fstest.MapFS{}
	for _, l := range frame.Langs {
		m[l+".json"] = &fstest.MapFile{Data: []byte(`{"test_brand":"Merchant console","test_home":"Overview"}`)}
	}
	return m
}

const base = "/console"

// env is the console with the four pages over the real Redis, a sandbox
// merchant (shop) and another merchant (other), served on loopback.
type env struct {
	t         *testing.T
	rdb       *redis.Client
	accounts  *access.Accounts
	merchants *merchant.Store
	shop      *merchant.Account
	other     *merchant.Account
	app       *fiber.App
	url       string // the console's root URL
	secrets   map[string]string
	now       time.Time
	payouts   *payout.Store
	endpoints *events.Store
	engine    *fakeDeliveries
}

func newEnv(t *testing.T) *env { t.Helper(); return newEnvWith(t, nil) }

// newEnvWith gives the desk an audit searcher (nil: none, as on a node
// without ClickHouse).
func newEnvWith(t *testing.T, searcher *audit.Searcher) *env {
	t.Helper()
	return newEnvStatements(t, searcher, nil)
}

// newEnvStatements is newEnvWith whose Balance page reads the journal's
// copy in ClickHouse through statements (nil: balances only).
func newEnvStatements(t *testing.T, searcher *audit.Searcher, st *statements.Statements) *env {
	t.Helper()
	ctx := context.Background()
	rdb := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := access.New(access.Defaults(), rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, rdb: rdb, accounts: accounts, merchants: merchant.NewStore(rdb), secrets: map[string]string{},
		now: time.Now().UTC().Truncate(30 * time.Second)}
	if e.shop, err = e.merchants.Create(ctx, merchant.NewAccount{Name: "shop", Sandbox: true, Callback: "https://93.184.216.34/hook"}); err != nil {
		t.Fatal(err)
	}
	if e.other, err = e.merchants.Create(ctx, merchant.NewAccount{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	webhooks, _ := dispatcher.NewMerchantDeliveries(rdb)
	dcfg := dispatcher.Defaults()
	tester, err := dispatcher.NewTester(dcfg, dispatcher.AccountKeys(e.merchants.Get, e.merchants.EnsureWebhookSecret))
	if err != nil {
		t.Fatal(err)
	}
	pj, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.payouts, err = payout.New(payout.Defaults(), rdb, pj, nil, nil); err != nil {
		t.Fatal(err)
	}
	if e.endpoints, err = events.NewStore(events.Defaults(), rdb, dispatcher.NewDestinations(false), nil, nil); err != nil {
		t.Fatal(err)
	}
	e.engine = newFakeDeliveries(e.now)
	svc, err := selfservice.New(selfservice.Defaults(), selfservice.Deps{Redis: rdb, Merchants: e.merchants, Accounts: accounts,
		Webhooks: webhooks, Tester: tester, Destinations: dispatcher.NewDestinations(false), Searcher: searcher,
		Statements: st, Payouts: e.payouts, Endpoints: e.endpoints, EndpointDeliveries: e.engine, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.url = "http://" + ln.Addr().String() + base
	pages := New(svc, "http://"+ln.Addr().String()+"/", log)
	ips, _ := platform.NewClientIP(nil)
	// As the console takes them: one Extensions entry, nothing else.
	deps := frame.Deps{Auth: accounts, ClientIP: ips, Templates: consoleTemplates, Locales: consoleLocales(),
		Nav: []frame.NavItem{{Path: "/", Label: "test_home"}}, Extensions: []frame.Extension{pages}}
	ui, err := frame.New(frame.Config{Base: base, Realm: access.RealmMerchant, CookieName: "gw_console", Brand: "test_brand"},
		deps, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	e.app = fiber.New(fiber.Config{DisableStartupMessage: true})
	g := ui.Register(e.app)
	g.Get("/", func(c *fiber.Ctx) error { return ui.Render(c, "home", ui.View(c, "test_home")) })
	g.Use(func(c *fiber.Ctx) error { return ui.Fail(c, fiber.ErrNotFound) }) // the console's catch-all, last
	go func() { _ = e.app.Listener(ln) }()
	t.Cleanup(func() { _ = e.app.Shutdown() })
	return e
}

// person enrols a user of the shop with role (e-mail role@shop.test) and
// returns a live session of theirs.
func (e *env) person(role access.Role) *access.Session {
	e.t.Helper()
	email := string(role) + "@shop.test"
	secret, _ := frametest.Enrol(e.t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: role}, e.now)
	e.secrets[email] = secret
	return frametest.Session(e.t, e.accounts, access.RealmMerchant, email, frametest.Code(e.t, secret, e.now.Add(30*time.Second)))
}

// do sends a request with the session's cookie (none for a nil session)
// and does not follow redirects.
func (e *env) do(s *access.Session, method, path string, vals url.Values) *http.Response {
	e.t.Helper()
	var body io.Reader
	if vals != nil {
		body = strings.NewReader(vals.Encode())
	}
	req := httptest.NewRequest(method, base+path, body)
	if vals != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if s != nil {
		req.AddCookie(&http.Cookie{Name: "gw_console", Value: s.ID})
	}
	res, err := e.app.Test(req, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// page is a GET's status and body.
func (e *env) page(s *access.Session, path string) (int, string) {
	e.t.Helper()
	res := e.do(s, http.MethodGet, path, nil)
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// deadDelivery stores a dead paid delivery of appid's order as the
// dispatcher's scripts leave one.
func (e *env) deadDelivery(appid string) string {
	e.t.Helper()
	ctx := context.Background()
	at := time.Now().Add(-time.Hour)
	shard := schema.RandomShard()
	id := schema.NewOrderID(at, shard)
	_, err := e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.WebhookKey(shard, id), "st", "dead", "n", 3, "url", "https://shop.example/hook",
			"host", "shop.example:443", "appid", appid, "p", "paymentId="+id, "paid", at.UnixMilli())
		p.ZAdd(ctx, schema.WebhookMerchantKey(shard, appid), redis.Z{Score: float64(at.UnixMilli()), Member: id})
		p.ZAdd(ctx, schema.WebhookMerchantAllKey(shard, appid), redis.Z{Score: float64(at.UnixMilli()), Member: id})
		p.RPush(ctx, schema.WebhookLogKey(shard, id), `{"at":"`+schema.WireTime(at)+`","attempt":3,"status":503,"error":"HTTP 503","body":"busy"}`)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// failingDelivery stores a paid delivery of appid's order that has failed
// twice and is due again in ten minutes.
func (e *env) failingDelivery(appid string) string {
	e.t.Helper()
	ctx := context.Background()
	at := time.Now().Add(-20 * time.Minute)
	shard := schema.RandomShard()
	id := schema.NewOrderID(at, shard)
	_, err := e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.WebhookKey(shard, id), "st", "pending", "n", 2, "url", "https://shop.example/hook", "due",
			time.Now().Add(10*time.Minute).UnixMilli(), "host", "shop.example:443", "appid", appid, "p", "paymentId="+id, "paid", at.UnixMilli())
		p.ZAdd(ctx, schema.WebhookMerchantKey(shard, appid), redis.Z{Score: float64(at.UnixMilli()), Member: id})
		p.ZAdd(ctx, schema.WebhookMerchantAllKey(shard, appid), redis.Z{Score: float64(at.UnixMilli()), Member: id})
		p.RPush(ctx, schema.WebhookLogKey(shard, id), `{"at":"`+schema.WireTime(at)+`","attempt":2,"status":0,"error":"timeout after 10s","body":""}`)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// fingerprint is every key but the limiter's and sessions' (a request
// marks its session used), as one comparable string.
func (e *env) fingerprint() string {
	e.t.Helper()
	ctx := context.Background()
	keys, err := e.rdb.Keys(ctx, "gw:*").Result()
	if err != nil {
		e.t.Fatal(err)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if strings.Contains(k, ":rl:") || strings.Contains(k, ":sess:") {
			continue
		}
		v, _ := e.rdb.Dump(ctx, k).Result()
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, "\n")
}
