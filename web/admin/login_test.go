package admin

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/frame/frametest"
)

// login posts the admin login form with code and answers the response.
func (e *env) login(t *testing.T, email, code string) *http.Response {
	t.Helper()
	page := e.do(t, get("/admin/login", nil))
	var pre *http.Cookie
	for _, c := range page.Cookies() {
		if c.Name == "gw_admin_pre" {
			pre = c
		}
	}
	if pre == nil {
		t.Fatal("no login form cookie")
	}
	req := post("/admin/login", nil, url.Values{"csrf": {pre.Value}, "email": {email}, "password": {frametest.Password}, "code": {code}})
	req.AddCookie(pre)
	return e.do(t, req)
}

// TestOperatorLoginNeedsTheRightTOTP: a right password with a wrong, an
// empty or a replayed code is refused and sets no session; the right code
// logs the operator in.
func TestOperatorLoginNeedsTheRightTOTP(t *testing.T) {
	e := newEnv(t)
	secret := e.secrets["sam@ops.test"]
	right := frametest.Code(t, secret, e.clock.now())
	wrong := "000000"
	if wrong == right {
		wrong = "111111"
	}
	noSession := func(res *http.Response) bool {
		for _, c := range res.Cookies() {
			if c.Name == "gw_admin" && c.Value != "" {
				return false
			}
		}
		return res.StatusCode != http.StatusSeeOther
	}
	for name, code := range map[string]string{"wrong code": wrong, "no code": ""} {
		if res := e.login(t, "sam@ops.test", code); !noSession(res) {
			t.Fatalf("%s: logged in (%d)", name, res.StatusCode)
		}
	}
	if res := e.login(t, "sam@ops.test", right); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("right code: %d", res.StatusCode)
	}
	if res := e.login(t, "sam@ops.test", right); !noSession(res) {
		t.Fatalf("the same code again: logged in (%d)", res.StatusCode)
	}
	e.clock.add(30 * time.Second)
}

// TestOperatorSessionNotOnMerchantConsole: the frame of the merchant
// console (/console, merchant realm) takes an operator's session for none.
func TestOperatorSessionNotOnMerchantConsole(t *testing.T) {
	e := newEnv(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ips, _ := platform.NewClientIP(nil)
	tmpl := fstest.MapFS{"home.html": {Data: []byte(`{{define "content"}}<h1>{{.L.Msg.console_home}}</h1>{{end}}`)}}
	loc := fstest.MapFS{}
	for _, l := range frame.Langs {
		loc[l+".json"] = &fstest.MapFile{Data: []byte(`{"console_brand":"Console","console_home":"Orders"}`)}
	}
	ui, err := frame.New(frame.Config{Base: "/console", Realm: access.RealmMerchant, CookieName: "gw_console", Brand: "console_brand"},
		frame.Deps{Auth: e.acc, ClientIP: ips, Templates: tmpl, Locales: loc}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New()
	g := ui.Register(app)
	g.Get("/", func(c *fiber.Ctx) error { return ui.Render(c, "home", ui.View(c, "console_home")) })
	for email, realm := range map[string]access.Realm{"ann@ops.test": access.RealmOperator, "owner@shop.test": access.RealmMerchant} {
		s := e.session(t, realm, email)
		req := get("/console/", nil)
		req.AddCookie(&http.Cookie{Name: "gw_console", Value: s.ID})
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		admitted := res.StatusCode == http.StatusOK
		if admitted != (realm == access.RealmMerchant) {
			t.Fatalf("%s on /console: %d", email, res.StatusCode)
		}
		if !admitted && !strings.HasPrefix(res.Header.Get("Location"), "/console/login") {
			t.Fatalf("%s sent to %q", email, res.Header.Get("Location"))
		}
	}
}
