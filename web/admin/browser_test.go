package admin

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/frame/frametest"
)

func TestMain(m *testing.M) { os.Exit(browser.Main(m)) }

// serve runs the console on 127.0.0.1:0 for the browser and answers its
// base URL (…/admin).
func (e *env) serve(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.app.Listener(ln) }()
	t.Cleanup(func() { _ = e.app.ShutdownWithTimeout(time.Second) })
	return "http://" + ln.Addr().String() + Prefix
}

// browserLogin logs email in through the login page.
func (e *env) browserLogin(t *testing.T, pg *browser.Page, base, email string) {
	t.Helper()
	frametest.Login(t, pg, base, email, frametest.Password, frametest.Code(t, e.secrets[email], e.clock.now()))
	e.clock.add(30 * time.Second)
}

// forge posts a form the page does not offer (the person's own session
// and, with csrf, its token taken from the page), as someone editing the
// page would, and waits for the answer page.
func forge(t *testing.T, pg *browser.Page, action string, fields map[string]string, csrf bool) {
	t.Helper()
	raw, _ := json.Marshal(fields)
	js := `(() => { const f = document.createElement("form"); f.method = "post"; f.action = ` + jsString(action) + `;
const add = (k, v) => { const i = document.createElement("input"); i.type = "hidden"; i.name = k; i.value = v; f.appendChild(i); };
const fields = ` + string(raw) + `; for (const k in fields) add(k, fields[k]);
` + map[bool]string{true: `add("csrf", document.querySelector('input[name="csrf"]').value);`, false: ``}[csrf] + `
window.__forging = true; document.body.appendChild(f); f.submit(); return true; })()`
	var ok bool
	pg.Eval(js, &ok)
	// The page it leaves may show a notice already: only the answer's page,
	// which lacks the mark set above, counts.
	pg.WaitTrue(`!window.__forging && document.readyState === "complete" && (document.querySelector("[data-error]") !== null || document.querySelector(".flash") !== null)`)
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// shoot checks the page at both widths (axe-core: no serious or critical
// violation; nothing overflows main) and saves its screenshots.
func shoot(t *testing.T, pg *browser.Page, name string) {
	t.Helper()
	for _, width := range []int{browser.Narrow, browser.Wide} {
		pg.SetWidth(width)
		pg.Look().CheckA11y(t, name)
		pg.Look().CheckNoOverflow(t, "main")
		pg.Look().Screenshot(name)
	}
}

// TestBrowserOperatorConsole: each role logs in through the page; the
// admin sees and uses every page (screenshots at 360 and 1280 px, axe
// clean, no console error or CSP violation) and approves a USDT review;
// support and the auditor find no approve form, and a forged approve is
// refused with 403 and changes nothing; the auditor's forged writes of
// every kind are refused; a form without the CSRF token is refused; a
// wrong TOTP code leaves the operator on the login page.
func TestBrowserOperatorConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	ctx := context.Background()
	unchanged := func(t *testing.T) {
		t.Helper()
		o, err := e.store.Get(ctx, e.review)
		if err != nil || o.Status != schema.StatusReady || o.Review != usdt.OutcomeWaiting {
			t.Fatalf("the review changed: %+v %v", o, err)
		}
	}
	t.Run("wrong TOTP", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		pg.Go(base + "/login")
		pg.Fill("#email", "ann@ops.test")
		pg.Fill("#password", frametest.Password)
		pg.Fill("#code", "000000")
		pg.Submit("form[data-login]")
		pg.AllowErrorStatus(401)
		pg.WaitVisible("[data-problem]")
		shoot(t, pg, "admin-login-refused")
	})
	for _, who := range []string{"sam@ops.test", "al@ops.test"} {
		t.Run(who+" refused approve and reject", func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, who)
			pg.Go(base + "/usdt/" + e.review)
			var offered bool
			pg.Eval(`document.querySelector("[data-approve], [data-reject]") !== null`, &offered)
			if offered {
				t.Fatal("the approve or reject form is offered")
			}
			forge(t, pg, base+"/usdt/"+e.review+"/approve", map[string]string{"note": "looks fine"}, true)
			pg.AllowErrorStatus(403)
			pg.Go(base + "/usdt/" + e.review)
			forge(t, pg, base+"/usdt/"+e.review+"/reject", map[string]string{"reason": "no"}, true)
			pg.AllowErrorStatus(403)
			unchanged(t)
		})
	}
	t.Run("support handles an exception and resends a webhook", func(t *testing.T) {
		pg := b.NewPage(browser.Narrow)
		e.browserLogin(t, pg, base, "sam@ops.test")
		pg.Go(base + "/exceptions")
		shoot(t, pg, "admin-exceptions-open")
		pg.Fill(`[data-exception="mismatch:`+e.mismatch+`"] input[name="note"]`, "provider returned the 200.00 CNY, ticket 4411")
		pg.Submit(`[data-exception="mismatch:` + e.mismatch + `"] form[data-handle]`)
		pg.WaitVisible(".flash")
		var still bool
		pg.Eval(`document.querySelector('[data-exception="mismatch:`+e.mismatch+`"]') !== null`, &still)
		if still {
			t.Fatal("the handled exception is still listed")
		}
		pg.Submit(`[data-exception="webhook_dead:` + e.dead + `"] form[data-resend]`)
		pg.WaitVisible(".flash")
		shard, _ := schema.ParseOrderID(e.dead)
		if man := e.rdb.HGet(ctx, schema.WebhookKey(shard, e.dead), "man").Val(); man == "" {
			t.Fatal("the resend was not queued")
		}
	})
	t.Run("auditor refused every write", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "al@ops.test")
		for _, w := range e.writes() {
			before := e.state(t)
			pg.Go(base + "/exceptions")
			fields := map[string]string{}
			for k := range w.vals {
				fields[k] = w.vals.Get(k)
			}
			forge(t, pg, base[:len(base)-len(Prefix)]+w.path, fields, true)
			pg.AllowErrorStatus(403)
			if e.state(t) != before {
				t.Fatalf("%s: refused, yet Redis changed", w.path)
			}
		}
	})
	t.Run("admin", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "ann@ops.test")
		for _, p := range []struct{ path, name string }{
			{"/exceptions", "admin-exceptions"}, {"/usdt", "admin-usdt"}, {"/usdt/" + e.review, "admin-review"},
			{"/merchants", "admin-merchants"}, {"/merchants/" + e.appid, "admin-merchant"}, {"/settings", "admin-settings"},
			{"/providers", "admin-providers"}, {"/audit", "admin-audit"},
		} {
			pg.Go(base + p.path)
			if st := pg.LastStatus(); st != 200 {
				t.Fatalf("%s: %d", p.path, st)
			}
			shoot(t, pg, p.name)
		}
		// A rate ten times the current one comes back for a confirmation,
		// the input kept and the pair's last rates shown.
		for _, rate := range []string{"121.5", "1215"} {
			pg.Go(base + "/settings")
			pg.Fill("#base", "USD")
			pg.Fill("#quote", "BDT")
			pg.Fill("#rate", rate)
			pg.Submit("form[data-fx]")
		}
		pg.AllowErrorStatus(409)
		pg.WaitVisible("[data-fx-warning]")
		shoot(t, pg, "admin-settings-fx-confirm")
		pg.Click("[data-fx-confirm]")
		pg.Submit("form[data-fx]")
		pg.WaitVisible(".flash")
		if r := e.rdb.HGet(ctx, schema.FXRatesKey, "USD:BDT").Val(); !strings.Contains(r, `"rate":"1215"`) {
			t.Fatalf("after the confirmation USD/BDT is %s", r)
		}
		pg.Go(base + "/usdt/" + e.review)
		forge(t, pg, base+"/usdt/"+e.review+"/approve", map[string]string{"note": "no token"}, false)
		pg.AllowErrorStatus(403)
		unchanged(t)
		pg.Go(base + "/usdt/" + e.review)
		pg.Fill("#note", "seen on tronscan, 30 confirmations")
		pg.Submit("form[data-approve]")
		pg.WaitVisible(".flash")
		if o, err := e.store.Get(ctx, e.review); err != nil || o.Status != schema.StatusPaid {
			t.Fatalf("after approve: %+v %v", o, err)
		}
		shoot(t, pg, "admin-review-approved")
	})
}
