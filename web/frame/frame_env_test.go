package frame

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame/frametest"
)

// demo is a console of two pages on the frame: one anybody logged in may
// read, one that changes something and needs a permission only owners
// hold.
var demoTemplates = fstest.MapFS{
	"home.html": {Data: []byte(`{{define "content"}}<h1>{{.L.Msg.demo_home}}</h1>
<form method="post" action="{{.Base}}/act" data-act><input type="hidden" name="csrf" value="{{.CSRF}}"><button>go</button></form>{{end}}`)},
}

func demoLocales() fstest.MapFS {
	m := fstest.MapFS{}
	for _, l := range Langs {
		m[l+".json"] = &fstest.MapFile{Data: []byte(`{"demo_brand":"Demo","demo_home":"Home of the demo"}`)}
	}
	return m
}

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

type frameEnv struct {
	ui    *UI
	app   *fiber.App
	acc   *access.Accounts
	clock *clock
	reg   *prometheus.Registry
	appid string
	acted int
}

func newFrameEnv(t *testing.T, mod func(*access.Config)) *frameEnv {
	t.Helper()
	rdb := testenv.Redis(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	ck := &clock{t: time.Now().UTC().Truncate(30 * time.Second)}
	cfg := access.Defaults()
	cfg.Clock = ck.now
	if mod != nil {
		mod(&cfg)
	}
	reg := prometheus.NewRegistry()
	acc, err := access.New(cfg, rdb, merchant.NewPasswordHasher(), lim, reg, log)
	if err != nil {
		t.Fatal(err)
	}
	m, err := merchant.NewStore(rdb).Create(context.Background(), merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	ips, _ := platform.NewClientIP(nil)
	e := &frameEnv{acc: acc, clock: ck, reg: reg, appid: m.AppID}
	e.ui, err = New(Config{Base: "/demo", Realm: access.RealmMerchant, CookieName: "gw_demo", Brand: "demo_brand"},
		Deps{Auth: acc, ClientIP: ips, Templates: demoTemplates, Locales: demoLocales(),
			Nav: []NavItem{{Path: "/", Label: "demo_home"}}}, reg, log)
	if err != nil {
		t.Fatal(err)
	}
	e.app = fiber.New()
	g := e.ui.Register(e.app)
	g.Get("/", func(c *fiber.Ctx) error { return e.ui.Render(c, "home", e.ui.View(c, "demo_home")) })
	g.Post("/act", e.ui.Require(access.PermUsersManage), func(c *fiber.Ctx) error { e.acted++; return c.SendString("done") })
	e.app.Get("/demonstration", func(c *fiber.Ctx) error { return c.SendString("another page of the app") })
	return e
}

// user makes an account of role and returns its TOTP secret; the clock
// moves past the step the setup spent.
func (e *frameEnv) user(t *testing.T, email string, role access.Role) string {
	t.Helper()
	secret, _ := frametest.Enrol(t, e.acc, access.NewUser{Realm: access.RealmMerchant, AppID: e.appid, Email: email, Role: role}, e.clock.now())
	e.clock.add(30 * time.Second)
	return secret
}

func (e *frameEnv) do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	res, err := e.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// form posts vals to path with the cookies.
func form(path string, vals url.Values, cookies ...*http.Cookie) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return req
}

func get(path string, cookies ...*http.Cookie) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return req
}

func cookie(res *http.Response, name string) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// login goes through the login page and form; it returns the answer.
func (e *frameEnv) login(t *testing.T, email, code string, extra ...*http.Cookie) *http.Response {
	t.Helper()
	page := e.do(t, get("/demo/login"))
	pre := cookie(page, "gw_demo_pre")
	if pre == nil {
		t.Fatal("the login page set no form cookie")
	}
	return e.do(t, form("/demo/login", url.Values{"csrf": {pre.Value}, "email": {email}, "password": {frametest.Password},
		"code": {code}}, append(extra, pre)...))
}

// metric is the logins counter's value for result.
func (e *frameEnv) metric(t *testing.T, result string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "gateway_console_logins_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func between(s, a, b string) string {
	_, rest, ok := strings.Cut(s, a)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, b)
	return v
}
