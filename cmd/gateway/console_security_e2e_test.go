package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/web/frame/frametest"
)

var (
	secretOnPage = regexp.MustCompile(`data-secret>([A-Z2-7]+)<`)
	csrfOnPage   = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	codeOnPage   = regexp.MustCompile(`<li><code>([a-z0-9]{5}-[a-z0-9]{5})</code></li>`)
)

// consoleSecrets takes a console user of merchant appid through every
// flow that carries one of its secrets — the CLI's setup link, the setup
// form (password, TOTP secret, recovery codes), a login, a page, a form
// with its CSRF token, a recovery-code login, log out everywhere — and
// returns those secrets for TestSecurityEndToEnd's grep, with the CLI's logs.
func consoleSecrets(t *testing.T, e *e2e, s *server, appid string) (map[string]string, string) {
	t.Helper()
	var added struct{ SetupLink string }
	cliLogs := e.secretCLI(&added, "", "console-user", "add", appid, "sec@shop.test", "--role", "owner", "--public-url", s.base, "--json")
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	page := func(method, u string, form url.Values) string {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, u, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d", method, u, res.StatusCode)
		}
		return string(b)
	}
	find := func(re *regexp.Regexp, html string) string {
		t.Helper()
		m := re.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("%s not on the page", re)
		}
		return m[1]
	}
	setup := page(http.MethodGet, added.SetupLink, nil)
	secret := find(secretOnPage, setup)
	done := page(http.MethodPost, added.SetupLink, url.Values{"csrf": {find(csrfOnPage, setup)}, "secret": {secret}, "required": {"0"},
		"password": {frametest.Password}, "password2": {frametest.Password}, "code": {frametest.Code(t, secret, time.Now())}})
	recovery := codeOnPage.FindAllStringSubmatch(done, -1)
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes", len(recovery))
	}
	login := page(http.MethodGet, s.base+"/console/login", nil)
	orders := page(http.MethodPost, s.base+"/console/login", url.Values{"csrf": {find(csrfOnPage, login)}, "email": {"sec@shop.test"},
		"password": {frametest.Password}, "code": {recovery[0][1]}, "next": {"/console/orders"}})
	tok := find(csrfOnPage, orders)
	var session string
	for _, c := range jar.Cookies(mustURL(t, s.base+"/console/")) {
		if c.Name == "gw_console" {
			session = c.Value
		}
	}
	page(http.MethodPost, s.base+"/console/logout", url.Values{"csrf": {tok}, "everywhere": {"1"}})
	out := map[string]string{"console password": frametest.Password, "console TOTP secret": secret, "console session id": session,
		"console CSRF token": tok, "console setup token": added.SetupLink[strings.LastIndex(added.SetupLink, "/")+1:]}
	for i, c := range recovery {
		out["console recovery code "+string(rune('a'+i))] = c[1]
	}
	return out, cliLogs
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
