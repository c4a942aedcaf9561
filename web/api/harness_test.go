package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/apitest"
	"github.com/paygate/gateway/journal/journaltest"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// testBase is the public URL handlers under test put in their addresses.
const testBase = "https://pay.test"

// testIP is the peer address fiber's app.Test gives every request.
const testIP = "0.0.0.0"

// harness is the API door over the command side's use cases on a real
// Redis (internal/testenv), as serve mounts it.
type harness struct {
	t        testing.TB
	rdb      *redis.Client
	app      *fiber.App
	accounts *merchant.Store
	acct     *merchant.Account // a sandbox merchant
	live     *merchant.Account // a live merchant
	store    *command.Store
	uc       *command.UseCases
	reg      *prometheus.Registry // the command side's metrics
	prov     *fakeProvider
	timeout  int            // app.Test's, in ms; -1: none
	fees     *fees.Resolver // the operator's fee schedules, none set
}

func newRedisHarness(t testing.TB) *harness {
	t.Helper()
	rdb := testenv.Redis(t)
	ctx := context.Background()
	t.Cleanup(func() { journaltest.Check(t, rdb) }) // whatever moved money kept the journal's invariants
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	accounts := merchant.NewStore(rdb)
	acct, err := accounts.Create(ctx, merchant.NewAccount{Name: "sandbox shop", Sandbox: true, Callback: "https://shop.test/hook"})
	if err != nil {
		t.Fatal(err)
	}
	live, err := accounts.Create(ctx, merchant.NewAccount{Name: "live shop"})
	if err != nil {
		t.Fatal(err)
	}
	dir := merchant.NewDirectory(accounts, log, 10*time.Millisecond)
	rates, _ := command.ParseUSDTRates("CNY=7.2,BDT=120")
	usdt, err := command.NewUSDT(rdb, usdtRates(rates), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ips, err := platform.NewClientIP(nil)
	if err != nil {
		t.Fatal(err)
	}
	prov := &fakeProvider{Base: testBase}
	lim := platform.Limit{PerSecond: 1000, Burst: 1000}
	reg := prometheus.NewRegistry()
	store := command.NewStore(rdb, time.Minute, time.Hour)
	feeCopy := fees.NewResolver(fees.NewStore(rdb), time.Hour, log) // as serve wires it: zero until set
	if err := feeCopy.Load(ctx); err != nil {
		t.Fatal(err)
	}
	uc, err := command.New(command.Config{PublicURL: testBase, OrderTTL: time.Minute, OrderRetention: time.Hour, CreateLimit: lim,
		QueryLimit: lim, MethodLimits: command.DefaultMethodLimits()},
		command.Deps{Accounts: dir, Store: store, Providers: fakeRegistry(prov), USDT: usdt,
			Rates: fixedRates{fxPairUSDBDT: 121_500_000, {Base: "USD", Quote: "EUR"}: 900_000}, ClientIP: ips, Fees: feeCopy, Registerer: reg, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	app := server.NewApp(log, prometheus.NewRegistry(), prometheus.NewRegistry())
	var limiter *platform.Limiter // limits have their own tests
	(&Handlers{UseCases: uc, Pages: server.PerIP(limiter, "pages", lim, ips)}).Register(app)
	return &harness{t: t, rdb: rdb, app: app, accounts: accounts, acct: acct, live: live, store: store, uc: uc, reg: reg, prov: prov, timeout: 5000,
		fees: feeCopy}
}

// idemCount is gateway_idempotency_keys_total of outcome.
func (h *harness) idemCount(outcome string) float64 {
	h.t.Helper()
	mfs, err := h.reg.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "gateway_idempotency_keys_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == outcome {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// baseParams is a valid wallet_a create of the sandbox merchant.
func (h *harness) baseParams() schema.Params {
	return schema.Params{
		"appid": h.acct.AppID, "clientip": testIP, "action": "createorder", "amount": "100",
		"currency": "CNY", "paymentMethod": "wallet_a",
	}
}

func (h *harness) do(req *http.Request) *response {
	h.t.Helper()
	res, err := h.app.Test(req, h.timeout)
	if err != nil {
		h.t.Fatal(err)
	}
	return apitest.Decode(h.t, res)
}

// post signs nothing: p must already carry its sign when it should.
func (h *harness) post(p schema.Params, header ...string) *response {
	h.t.Helper()
	return h.postTo("/api/createorder", p, header...)
}

func newAccount(name string, sandbox bool) merchant.NewAccount {
	return merchant.NewAccount{Name: name, Sandbox: sandbox}
}

// orderCount is how many orders appid has, over every shard.
func orderCount(t *testing.T, h *harness, appid string) int64 {
	t.Helper()
	var n int64
	for _, s := range schema.AllShards() {
		v, _ := h.rdb.Get(context.Background(), schema.OrderCountKey(s, appid)).Int64()
		n += v
	}
	return n
}

// sandboxMove pays or fails order id through the sandbox driver.
func sandboxMove(t *testing.T, h *harness, id, action string) *response {
	t.Helper()
	q := url.Values{"appid": {h.acct.AppID}, "key": {h.acct.QueryKey}}
	r := h.do(httptest.NewRequest(http.MethodPost, "/sandbox/orders/"+id+"/"+action+"?"+q.Encode(), nil))
	if r.Status != 200 {
		t.Fatalf("sandbox %s %s: %s", action, id, r.Raw)
	}
	return r
}

func wantBalance(t *testing.T, h *harness, cur string, want schema.Amount) {
	t.Helper()
	bal, err := h.accounts.Balances(context.Background(), h.acct.AppID)
	if err != nil || bal[cur] != want {
		t.Fatalf("balance %s = %v (%v), want %v", cur, bal[cur], err, want)
	}
}

// postJSON sends body as is to POST /api/createorder.
func (h *harness) postJSON(body string) *response {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/createorder", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return h.do(req)
}

func (h *harness) get(path string, q url.Values) *response {
	h.t.Helper()
	return h.do(httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil))
}

func (h *harness) createOK(p schema.Params) map[string]any {
	h.t.Helper()
	r := h.post(signed(p, h.acct.APIKey))
	if r.Status != 200 {
		h.t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	return r.Data(h.t)
}

func newPost(target, form string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form))
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req
}

func newGet(target string) *http.Request { return httptest.NewRequest(http.MethodGet, target, nil) }

// The shared answer, signing and event count of internal/apitest, under the
// names these tests use.
type response = apitest.Response

func signed(p schema.Params, key string) schema.Params { return apitest.Signed(p, key) }

func countEvents(t *testing.T, h *harness, shard schema.Shard, id string) int {
	t.Helper()
	return apitest.CountEvents(t, h.rdb, shard, id)
}
