package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// shop is the merchant's site in these tests: where return_url sends the
// payer back, and what it saw.
type shop struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []string
}

func newShop(t *testing.T) *shop {
	t.Helper()
	s := &shop{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>shop</title><h1 id=back>Back at the shop: %s</h1>", r.URL.Path)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// merchantName is the display name the payer pages show: set with
// `merchant set-name` after `merchant create --name shop`.
const merchantName = "Lotus Tea House"

// payerEnv is one running gateway with a sandbox merchant and the shop.
type payerEnv struct {
	e     *e2e
	s     *server
	m     account
	shop  *shop
	hooks *hookReceiver
}

func newPayerEnv(t *testing.T, env ...string) *payerEnv {
	t.Helper()
	e := newE2E(t)
	e.run("migrate")
	browser.New(t) // fail or skip before starting servers when there is no browser
	p := &payerEnv{e: e, shop: newShop(t), hooks: newHookReceiver(t)}
	e.cli(&p.m, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(nil, "merchant", "set-name", p.m.AppID, merchantName, "--json")
	e.cli(nil, "fx", "set", "USD", "EUR", "0.92", "--json")
	p.s = e.serve(env...)
	return p
}

// hostedURL is the signed GET /api/createorder address a merchant sends the
// payer's browser to.
func (p *payerEnv) hostedURL(method, amount, currency string, extra ...string) string {
	q := schema.Params{"appid": p.m.AppID, "clientip": "127.0.0.1", "action": "createorder", "amount": amount,
		"currency": currency, "paymentMethod": method, "notify_url": p.hooks.url,
		"return_url": p.shop.srv.URL + "/return/{paymentId}"}
	for i := 0; i+1 < len(extra); i += 2 {
		q[extra[i]] = extra[i+1]
	}
	q["sign"] = schema.Sign(q, p.m.APIKey)
	v := url.Values{}
	for k, val := range q {
		v.Set(k, val)
	}
	return p.s.base + "/api/createorder?" + v.Encode()
}

// open goes to the hosted create and returns the order id the page shows.
func (p *payerEnv) open(t *testing.T, pg *browser.Page, u string) string {
	t.Helper()
	pg.Go(u)
	if st := pg.LastStatus(); st != http.StatusOK {
		t.Fatalf("GET /api/createorder answered %d", st)
	}
	checkPageHeaders(t, pg)
	if got := pg.Text("[data-merchant]"); got != merchantName {
		t.Errorf("the page names the merchant %q, want %q", got, merchantName)
	}
	return strings.TrimSpace(pg.Text(".summary dd code"))
}

// noWaiting: a step where the payer still chooses shows no spinner and no
// "waiting for your payment".
func noWaiting(t *testing.T, pg *browser.Page) {
	t.Helper()
	var waiting bool
	pg.Eval(`!!document.querySelector(".spinner, .poll") || document.body.innerText.includes("Waiting for your payment")`, &waiting)
	if waiting {
		t.Error("the page says it waits for the payment while the payer has a choice to make")
	}
}

// checkPageHeaders: our CSP on the document, nothing blocked or broken.
func checkPageHeaders(t *testing.T, pg *browser.Page) {
	t.Helper()
	csp := pg.LastResponseHeaders().Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'nonce-") {
		t.Errorf("CSP %q", csp)
	}
	pg.AssertNoConsoleErrors(t)
}

// shoot checks the page at both widths (axe-core finds no serious or
// critical violation, nothing overflows its box) and saves its screenshots.
func shoot(t *testing.T, pg *browser.Page, name string) {
	t.Helper()
	w := pg.Look().Width()
	for _, width := range []int{browser.Narrow, browser.Wide} {
		pg.SetWidth(width)
		pg.Look().CheckA11y(t, name)
		pg.Look().CheckNoOverflow(t, "main")
		pg.Look().Screenshot(name)
	}
	pg.SetWidth(w)
}

func (p *payerEnv) paid(t *testing.T, id string) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return p.s.order(t, p.m.AppID, p.m.QueryKey, id).Data["status"] == 2.0 })
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return p.hooks.got(id).Get("status") == "2" })
}

// simulatedPage checks a simulated provider page as a payer page: it names
// the merchant, passes axe-core and overflows nothing at both widths.
func simulatedPage(t *testing.T, pg *browser.Page, name string) {
	t.Helper()
	if got := pg.Text("[data-merchant]"); got != merchantName {
		t.Errorf("the simulated provider page names the merchant %q, want %q", got, merchantName)
	}
	shoot(t, pg, name)
}

// backAtShop waits for the browser to arrive at return_url.
func backAtShop(t *testing.T, pg *browser.Page, id string, within time.Duration) {
	t.Helper()
	pg.SetTimeout(within)
	pg.WaitText("#back", "/return/"+id)
	pg.SetTimeout(browser.DefaultTimeout)
}

// stdin runs a gateway subcommand with input on its standard input.
func (e *e2e) stdin(input string, args ...string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL, "GATEWAY_CLICKHOUSE_DSN="+e.chDSN)
	cmd.Stdin = strings.NewReader(input + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("gateway %v: %v\n%s", args, err, out)
	}
}

// underReview waits until pg shows the review of hash (true) or has left
// for the shop's return address (false).
func underReview(t *testing.T, pg *browser.Page, hash string) bool {
	t.Helper()
	review := fmt.Sprintf(`(() => { const r = document.querySelector(".review"); return !!r && r.textContent.includes(%q); })()`, hash)
	if !pg.WaitTrue(review + ` || location.pathname.startsWith("/return/")`) {
		t.Fatalf("neither the review of %s nor the shop after %s", hash, browser.DefaultTimeout)
	}
	var shown bool
	pg.Eval(review, &shown)
	if !shown {
		t.Logf("the reviewer approved %s before the review page was read", hash)
	}
	return shown
}
