package command

import (
	"context"
	"encoding/json"
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

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// testBase is the public URL handlers under test put in their addresses.
const testBase = "https://pay.test"

// testIP is the peer address the door's test server gives every request.
const testIP = "0.0.0.0"

// HTTPDoor serves uc's routes as the gateway mounts them (web/api,
// web/notify, pages limited per IP at pages), for the tests here that still
// drive use cases through the door. door_test.go sets it: as package
// command_test it may import the door, which imports this package.
var HTTPDoor func(uc *UseCases, pages platform.Limit, log *slog.Logger) func(*http.Request) (*http.Response, error)

type harness struct {
	t        testing.TB
	rdb      *redis.Client
	serve    func(*http.Request) (*http.Response, error) // the API door over uc
	accounts *merchant.Store
	acct     *merchant.Account // a sandbox merchant
	live     *merchant.Account // a live merchant
	create   *CreateOrder
	uc       *UseCases
	store    *Store
	prov     *fakeProvider
}

type harnessOpt func(*harnessConf)

type harnessConf struct {
	trusted []string
	now     platform.Clock
}

// withClock runs the command side by now, as serve does with
// GATEWAY_CLOCK_OFFSET.
func withClock(now platform.Clock) harnessOpt {
	return func(c *harnessConf) { c.now = now }
}

func withTrustedProxies(cidrs ...string) harnessOpt {
	return func(c *harnessConf) { c.trusted = cidrs }
}

// newRedisHarness runs the command side over a database of its own on the
// real Redis (internal/testenv): every test here runs the order scripts, and
// miniredis's Lua engine is not Redis's.
func newRedisHarness(t testing.TB, opts ...harnessOpt) *harness {
	t.Helper()
	return newHarness(t, testenv.Redis(t), opts...)
}

func newHarness(t testing.TB, rdb *redis.Client, opts ...harnessOpt) *harness {
	t.Helper()
	var conf harnessConf
	for _, o := range opts {
		o(&conf)
	}
	ctx := context.Background()
	// Whatever the test moved, the journal must hold its invariants after.
	t.Cleanup(func() { journaltest.Check(t, rdb) })
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
	rates, _ := ParseUSDTRates("CNY=7.2,BDT=120")
	usdt, err := NewUSDT(rdb, usdtRates(rates), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ips, err := platform.NewClientIP(conf.trusted)
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(rdb, time.Minute, time.Hour)
	prov := &fakeProvider{Base: testBase}
	providers := fakeRegistry(prov)
	fxRates := fixedRates{fxPairUSDBDT: 121_500_000, {Base: "USD", Quote: "EUR"}: 900_000}
	lim := platform.Limit{PerSecond: 1000, Burst: 1000}
	uc, err := New(Config{PublicURL: testBase, OrderTTL: time.Minute, OrderRetention: time.Hour, CreateLimit: lim, QueryLimit: lim,
		MethodLimits: DefaultMethodLimits(), Now: conf.now},
		Deps{Accounts: dir, Store: store, Providers: providers, USDT: usdt, Rates: fxRates, ClientIP: ips,
			Registerer: prometheus.NewRegistry(), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, rdb: rdb, serve: HTTPDoor(uc, lim, log), accounts: accounts, acct: acct, live: live, create: uc.Create, uc: uc, store: store, prov: prov}
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
	res, err := h.serve(req)
	if err != nil {
		h.t.Fatal(err)
	}
	return apitest.Decode(h.t, res)
}

// postJSON sends body as is.
func (h *harness) postJSON(body string, header ...string) *response {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/createorder", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return h.do(req)
}

// post signs nothing: p must already carry its sign when it should.
func (h *harness) post(p schema.Params, header ...string) *response {
	h.t.Helper()
	b, _ := json.Marshal(p)
	return h.postJSON(string(b), header...)
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

func newAccount(name string, sandbox bool) merchant.NewAccount {
	return merchant.NewAccount{Name: name, Sandbox: sandbox}
}

func newPost(target, form string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form))
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req
}

// newSettle is a Settle of its own, whose clock a test may set without
// moving the use cases' shared one.
func (h *harness) newSettle() *Settle {
	s := *h.uc.Settle
	return &s
}

// setProviders swaps the provider registry of every use case that asks
// providers, as one registry is shared in serve.
func (h *harness) setProviders(r *provider.Registry) {
	h.uc.Create.providers, h.uc.Choose.providers, h.uc.Confirm.providers = r, r, r
	h.uc.Refund.providers, h.uc.Options.providers, h.uc.Notifications.providers = r, r, r
	rt := h.uc.Create.init.route
	rt.providers, rt.router = r, channel.NewRouter(rt.router.Directory(), r)
}

// sweeper sweeps every shard's due orders as the expiry worker would, with
// the clock moved after ahead of now.
func (h *harness) sweeper(t *testing.T) func(after time.Duration) {
	t.Helper()
	settle := h.newSettle()
	e := settle.NewExpirer(h.rdb, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return func(after time.Duration) {
		t.Helper()
		settle.now = func() time.Time { return time.Now().Add(after) }
		for _, s := range schema.AllShards() {
			if _, err := e.Sweep(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// status is order id's status in Redis.
func (h *harness) status(t *testing.T, id string) schema.Status {
	t.Helper()
	o, err := h.store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o.Status
}

// postTo signs nothing: p must already carry its sign when it should.
func (h *harness) postTo(path string, p schema.Params, header ...string) *response {
	h.t.Helper()
	b, _ := json.Marshal(p)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return h.do(req)
}

// headerIdempotentReplayed is the door's replay header (web/api), as
// merchants see it.
const headerIdempotentReplayed = "Idempotent-Replayed"

// deferred creates a two-step order (fiatpsp, cryptopsp) left at its
// second choice.
func (h *harness) deferred(method, currency, amount string) string {
	h.t.Helper()
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"] = method, currency, amount
	return h.createOK(p)["paymentId"].(string)
}

// The shared answer, signing and event count of internal/apitest, under the
// names these tests use.
type response = apitest.Response

func signed(p schema.Params, key string) schema.Params { return apitest.Signed(p, key) }

func countEvents(t *testing.T, h *harness, shard schema.Shard, id string) int {
	t.Helper()
	return apitest.CountEvents(t, h.rdb, shard, id)
}
