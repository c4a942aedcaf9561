package frame

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame/frametest"
)

func TestLoginCookieFlagsAndFixation(t *testing.T) {
	e := newFrameEnv(t, nil)
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	planted := strings.Repeat("A", 43) // an id an attacker set before the login
	res := e.login(t, "owner@shop.test", frametest.Code(t, secret, e.clock.now()), &http.Cookie{Name: "gw_demo", Value: planted})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login answered %d", res.StatusCode)
	}
	c := cookie(res, "gw_demo")
	if c == nil || c.Value == planted || len(c.Value) != 43 {
		t.Fatalf("session cookie %+v: want a fresh id", c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/demo" {
		t.Errorf("cookie flags %+v: want HttpOnly, SameSite=Strict, Path=/demo", c)
	}
	if c.Secure {
		t.Error("Secure over plain http on a config without Secure")
	}
	if home := e.do(t, get("/demo/", c)); home.StatusCode != http.StatusOK {
		t.Fatalf("home with the new session: %d", home.StatusCode)
	}
	if home := e.do(t, get("/demo/", &http.Cookie{Name: "gw_demo", Value: planted})); home.StatusCode != http.StatusSeeOther {
		t.Fatalf("home with the planted id: %d, want the way to login", home.StatusCode)
	}
	// A live session the browser came with (one an attacker planted, or
	// the person's own) ends at login: the login never keeps an old id.
	e.clock.add(30 * time.Second)
	old := frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	e.clock.add(30 * time.Second)
	res = e.login(t, "owner@shop.test", frametest.Code(t, secret, e.clock.now()), &http.Cookie{Name: "gw_demo", Value: old.ID})
	if c := cookie(res, "gw_demo"); res.StatusCode != http.StatusSeeOther || c == nil || c.Value == old.ID {
		t.Fatalf("login over a live session: %d, cookie %+v", res.StatusCode, c)
	}
	if home := e.do(t, get("/demo/", &http.Cookie{Name: "gw_demo", Value: old.ID})); home.StatusCode != http.StatusSeeOther {
		t.Fatalf("the session the browser came with still works after login: %d", home.StatusCode)
	}
	e.ui.cfg.Secure = true
	e.clock.add(30 * time.Second)
	res = e.login(t, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	if c := cookie(res, "gw_demo"); c == nil || !c.Secure {
		t.Errorf("under https the cookie is %+v, want Secure", c)
	}
}

func TestSessionGuards(t *testing.T) {
	e := newFrameEnv(t, nil)
	ownerSecret := e.user(t, "owner@shop.test", access.RoleOwner)
	viewerSecret := e.user(t, "viewer@shop.test", access.RoleViewer)
	opSecret, _ := frametest.Enrol(t, e.acc, access.NewUser{Realm: access.RealmOperator, Email: "op@gw.test", Role: access.RoleAdmin}, e.clock.now())
	e.clock.add(30 * time.Second)
	now := e.clock.now()
	owner := frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, ownerSecret, now))
	viewer := frametest.Session(t, e.acc, access.RealmMerchant, "viewer@shop.test", frametest.Code(t, viewerSecret, now))
	op := frametest.Session(t, e.acc, access.RealmOperator, "op@gw.test", frametest.Code(t, opSecret, now))
	sc := func(s *access.Session) *http.Cookie { return &http.Cookie{Name: "gw_demo", Value: s.ID} }
	act := func(s *access.Session, csrf string) *http.Request {
		return form("/demo/act", url.Values{"csrf": {csrf}}, sc(s))
	}
	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
		acted  bool
		to     string // where a redirect goes
	}{
		{"no session goes to login", get("/demo/"), http.StatusSeeOther, false, "/demo/login?next=%2Fdemo%2F"},
		{"a path that only starts like the console's is not the console's", get("/demonstration"), http.StatusOK, false, ""},
		{"an operator session is no session here", get("/demo/", sc(op)), http.StatusSeeOther, false, "/demo/login"},
		{"a write without the CSRF token is refused", act(owner, ""), http.StatusForbidden, false, ""},
		{"a write with another session's token is refused", act(owner, viewer.CSRF), http.StatusForbidden, false, ""},
		{"a role without the permission is refused", act(viewer, viewer.CSRF), http.StatusForbidden, false, ""},
		{"the owner with its token acts", act(owner, owner.CSRF), http.StatusOK, true, ""},
		{"the token in the header does too", func() *http.Request {
			r := act(owner, "")
			r.Header.Set("X-CSRF-Token", owner.CSRF)
			return r
		}(), http.StatusOK, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.acted
			res := e.do(t, tc.req)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if got := e.acted > before; got != tc.acted {
				t.Errorf("acted %v, want %v", got, tc.acted)
			}
			if tc.to != "" && !strings.HasPrefix(res.Header.Get("Location"), tc.to) {
				t.Errorf("redirect to %q, want %q", res.Header.Get("Location"), tc.to)
			}
		})
	}
	t.Run("an idle session goes back to login", func(t *testing.T) {
		e.clock.add(31 * time.Minute)
		res := e.do(t, get("/demo/", sc(owner)))
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/demo/login") {
			t.Fatalf("status %d to %q, want the login page", res.StatusCode, res.Header.Get("Location"))
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	e := newFrameEnv(t, nil)
	for _, path := range []string{"/demo/login", "/demo/setup/unknown"} {
		res := e.do(t, get(path))
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors 'none'", "default-src 'none'", "script-src 'nonce-", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %s", path, csp, want)
			}
		}
		if res.Header.Get("X-Frame-Options") != "DENY" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
			res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", path, res.Header)
		}
	}
	a, b := e.do(t, get("/demo/login")), e.do(t, get("/demo/login"))
	if a.Header.Get("Content-Security-Policy") == b.Header.Get("Content-Security-Policy") {
		t.Error("two pages had the same nonce")
	}
}

func TestWrongCodeRefusedAndCounted(t *testing.T) {
	e := newFrameEnv(t, nil)
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	wrong := frametest.Code(t, secret, e.clock.now().Add(-10*time.Minute))
	res := e.login(t, "owner@shop.test", wrong)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "Wrong e-mail, password or code.") {
		t.Fatalf("wrong code: %d %s", res.StatusCode, body)
	}
	if cookie(res, "gw_demo") != nil {
		t.Error("a refused login set a session cookie")
	}
	if n := e.metric(t, "bad_credentials"); n != 1 {
		t.Errorf("bad_credentials logins counted %v, want 1", n)
	}
}

func TestLogoutEverywhere(t *testing.T) {
	e := newFrameEnv(t, nil)
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	a := frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	e.clock.add(30 * time.Second)
	b := frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	live := func(s *access.Session) bool {
		return e.do(t, get("/demo/", &http.Cookie{Name: "gw_demo", Value: s.ID})).StatusCode == http.StatusOK
	}
	res := e.do(t, form("/demo/logout", url.Values{"csrf": {a.CSRF}}, &http.Cookie{Name: "gw_demo", Value: a.ID}))
	if res.StatusCode != http.StatusSeeOther || live(a) || !live(b) {
		t.Fatalf("logout: %d, a live %v, b live %v: want only a ended", res.StatusCode, live(a), live(b))
	}
	if c := cookie(res, "gw_demo"); c == nil || c.Value != "" {
		t.Errorf("logout left the cookie %+v", c)
	}
	e.clock.add(30 * time.Second)
	a = frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	e.do(t, form("/demo/logout", url.Values{"csrf": {a.CSRF}, "everywhere": {"1"}}, &http.Cookie{Name: "gw_demo", Value: a.ID}))
	if live(a) || live(b) {
		t.Fatal("log out everywhere left a session")
	}
}

func TestLoginLimit(t *testing.T) {
	e := newFrameEnv(t, func(c *access.Config) { c.PerAccount = platform.Limit{PerSecond: 1.0 / 60, Burst: 3} })
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	for i := range 3 {
		if res := e.login(t, "owner@shop.test", "000000"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, res.StatusCode)
		}
	}
	res := e.login(t, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || cookie(res, "gw_demo") != nil {
		t.Fatalf("the right password over the limit: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
}

func TestLoginNeedsFormCookie(t *testing.T) {
	e := newFrameEnv(t, nil)
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	res := e.do(t, form("/demo/login", url.Values{"email": {"owner@shop.test"}, "password": {frametest.Password},
		"code": {frametest.Code(t, secret, e.clock.now())}}))
	if res.StatusCode != http.StatusForbidden || cookie(res, "gw_demo") != nil {
		t.Fatalf("a login posted from elsewhere: %d", res.StatusCode)
	}
}

func TestSetupShowsSecretAndRecoveryCodes(t *testing.T) {
	e := newFrameEnv(t, nil)
	_, token, err := access.NewTeam(e.acc).Create(context.Background(), access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: e.appid,
		Email: "new@shop.test", Role: access.RoleFinance})
	if err != nil {
		t.Fatal(err)
	}
	page := e.do(t, get("/demo/setup/"+token))
	body, _ := io.ReadAll(page.Body)
	secret := between(string(body), `data-secret>`, `</code>`)
	if page.StatusCode != http.StatusOK || len(secret) < 16 || !strings.Contains(string(body), `src="data:image/png;base64,`) {
		t.Fatalf("setup page %d: secret %q", page.StatusCode, secret)
	}
	pre := cookie(page, "gw_demo_pre")
	post := func(code string) (*http.Response, string) {
		res := e.do(t, form("/demo/setup/"+token, url.Values{"csrf": {pre.Value}, "secret": {secret}, "password": {frametest.Password},
			"password2": {frametest.Password}, "code": {code}, "required": {"0"}}, pre))
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	if res, b := post("000000"); res.StatusCode != http.StatusUnauthorized || !strings.Contains(b, secret) {
		t.Fatalf("a wrong code: %d, want 401 and the same secret again", res.StatusCode)
	}
	res, b := post(frametest.Code(t, secret, e.clock.now()))
	if res.StatusCode != http.StatusOK || strings.Count(b, "<li><code>") != 10 {
		t.Fatalf("setup done %d, recovery codes shown %d", res.StatusCode, strings.Count(b, "<li><code>"))
	}
	if again := e.do(t, get("/demo/setup/"+token)); again.StatusCode != http.StatusForbidden {
		t.Fatalf("a used setup link answered %d", again.StatusCode)
	}
}

// TestTwoConsolesOneRegistry: the merchant and operator consoles can be
// built in one process on one metrics registry.
func TestTwoConsolesOneRegistry(t *testing.T) {
	e := newFrameEnv(t, nil)
	ips, _ := platform.NewClientIP(nil)
	_, err := New(Config{Base: "/other", Realm: access.RealmOperator, CookieName: "gw_other", Brand: "demo_brand"},
		Deps{Auth: e.acc, ClientIP: ips, Templates: demoTemplates, Locales: demoLocales()}, e.reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
}

// TestSetupLinkOfTheOtherConsole: an operator's setup link posted to the
// merchant console is refused and changes nothing; it then works on the
// operator console.
func TestSetupLinkOfTheOtherConsole(t *testing.T) {
	e := newFrameEnv(t, nil)
	ips, _ := platform.NewClientIP(nil)
	ops, err := New(Config{Base: "/ops", Realm: access.RealmOperator, CookieName: "gw_ops", Brand: "demo_brand"},
		Deps{Auth: e.acc, ClientIP: ips, Templates: demoTemplates, Locales: demoLocales()}, e.reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ops.Register(e.app)
	acct, token, err := access.NewTeam(e.acc).Create(context.Background(), access.CLI(), access.NewUser{Realm: access.RealmOperator, Email: "admin@ops.test", Role: access.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	// The attacker brings an enrolment of their own: the secret travels in the form.
	const attackerSecret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	pre := cookie(e.do(t, get("/demo/login")), "gw_demo_pre")
	res := e.do(t, form("/demo/setup/"+token, url.Values{"csrf": {pre.Value}, "secret": {attackerSecret}, "password": {"an attacker's password"},
		"password2": {"an attacker's password"}, "code": {frametest.Code(t, attackerSecret, e.clock.now())}, "required": {"1"}}, pre))
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("the operator's link on the merchant console answered %d, want 403", res.StatusCode)
	}
	if got, err := e.acc.Get(context.Background(), acct.ID); err != nil || got.PasswordSet || got.TOTP {
		t.Fatalf("after the refusal: %+v, %v; want no password and no TOTP", got, err)
	}
	page := e.do(t, get("/ops/setup/"+token))
	body, _ := io.ReadAll(page.Body)
	secret := between(string(body), `data-secret>`, `</code>`)
	if page.StatusCode != http.StatusOK || secret == "" {
		t.Fatalf("the link on the operator console: %d", page.StatusCode)
	}
	opre := cookie(page, "gw_ops_pre")
	res = e.do(t, form("/ops/setup/"+token, url.Values{"csrf": {opre.Value}, "secret": {secret}, "password": {frametest.Password},
		"password2": {frametest.Password}, "code": {frametest.Code(t, secret, e.clock.now())}, "required": {"1"}}, opre))
	if b, _ := io.ReadAll(res.Body); res.StatusCode != http.StatusOK || strings.Count(string(b), "<li><code>") != 10 {
		t.Fatalf("setup on the operator console: %d", res.StatusCode)
	}
}
