package console

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

func TestMain(m *testing.M) { os.Exit(browser.Main(m)) }

// powers is what each role may do on an order (access.grants).
type powers struct{ refund, cancel, resend, sandbox, export bool }

var rolePowers = map[access.Role]powers{
	access.RoleOwner:     {refund: true, cancel: true, resend: true, sandbox: true, export: true},
	access.RoleDeveloper: {resend: true, sandbox: true},
	access.RoleFinance:   {refund: true, cancel: true, export: true},
	access.RoleViewer:    {},
}

// fresh gives one role's test its own orders to act on: a paid one with
// a delivery, an open one and an open sandbox one.
func (e *env) fresh(role access.Role) (paid, open, sandbox string) {
	now := time.Now().UTC()
	mk := func(st schema.Status, sb bool) string {
		o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: e.shop, Status: st, Method: "wallet_a", Amount: 10000,
			Currency: "CNY", ClientOrderID: "co-" + string(role), Sandbox: sb, CreatedAt: now.Add(-time.Minute), UpdatedAt: now, Version: 2}
		if st == schema.StatusPaid {
			o.CompletedAt = now
		}
		e.store.add(o)
		e.store.hooks[o.ID+"/"+o.ID] = []schema.WebhookAttempt{{At: schema.WireTime(now), Attempt: 1, Status: 200, Body: "success", Success: true}}
		return o.ID
	}
	return mk(schema.StatusPaid, false), mk(schema.StatusReady, false), mk(schema.StatusReady, true)
}

// csrf is the session's form token as the page carries it.
func csrf(pg *browser.Page) string {
	var tok string
	pg.Eval(`(document.querySelector('input[name="csrf"]') || {}).value || ""`, &tok)
	return tok
}

// forge posts a form the page did not offer (a hand-made request of the
// logged-in person) and returns the answer's status.
func forge(t *testing.T, pg *browser.Page, path string, fields map[string]string) int {
	t.Helper()
	return pg.ForgePost(path, fields)
}

func has(pg *browser.Page, sel string) bool {
	var ok bool
	pg.Eval(fmt.Sprintf(`!!document.querySelector(%q)`, sel), &ok)
	return ok
}

// shoot checks the page at 360 and 1280 px: nothing overflows, axe-core
// finds nothing serious, no console error; and saves both screenshots.
func shoot(t *testing.T, pg *browser.Page, name string) {
	t.Helper()
	for _, w := range []int{browser.Narrow, browser.Wide} {
		pg.SetWidth(w)
		pg.Look().CheckNoOverflow(t, "body")
		pg.Look().CheckNoInnerScroll(t, "nav.nav, nav.nav ul")
		pg.Look().CheckA11y(t, name)
		pg.Look().Screenshot("console-" + name)
	}
	pg.AssertNoConsoleErrors(t)
}

func TestConsoleRolesInBrowser(t *testing.T) {
	e := newEnv(t)
	b := browser.New(t)
	for _, role := range access.Roles(access.RealmMerchant) {
		t.Run(string(role), func(t *testing.T) {
			may := rolePowers[role]
			paid, open, sandbox := e.fresh(role)
			pg := b.NewPage(browser.Wide)
			frametest.Login(t, pg, e.base, e.users[role], frametest.Password, e.code(t, e.users[role]))
			shots := role == access.RoleOwner

			pg.Go(e.base + "/")
			if pg.LastStatus() != http.StatusOK || !has(pg, "figure.chart svg") {
				t.Fatalf("overview: %d, chart drawn %v", pg.LastStatus(), has(pg, "figure.chart svg"))
			}
			if shots {
				shoot(t, pg, "overview")
			} else {
				pg.Look().CheckA11y(t, "overview")
			}

			pg.Go(e.base + "/orders")
			text := pg.Text("table[data-orders]")
			if !strings.Contains(text, e.orders["paid"]) || strings.Contains(text, e.orders["theirs"]) {
				t.Errorf("orders page: own order shown %v, other merchant's shown %v", strings.Contains(text, e.orders["paid"]), strings.Contains(text, e.orders["theirs"]))
			}
			if has(pg, "[data-export]") != may.export {
				t.Errorf("export link shown %v, want %v", !may.export, may.export)
			}
			if shots {
				shoot(t, pg, "orders")
			}

			pg.Go(e.base + "/orders/" + e.orders["paid"])
			if tl := pg.Text("[data-timeline]"); strings.Contains(tl, "acct-7f3a") || !strings.Contains(tl, "tried another account") {
				t.Errorf("timeline of a failed-over order: %q", tl)
			}
			e.checkTruth(t, pg, role)
			if shots {
				shoot(t, pg, "order-failover")
				pg.Go(e.base + "/zone")
				if !has(pg, "form[data-zone-form]") {
					t.Error("no time zone form")
				}
				shoot(t, pg, "zone")
			}

			pg.Go(e.base + "/orders/" + paid)
			for sel, want := range map[string]bool{`[data-action="refund"]`: may.refund, `[data-action="resend"]`: may.resend} {
				if has(pg, sel) != want {
					t.Errorf("paid order: form %s shown %v, want %v", sel, !want, want)
				}
			}
			if shots {
				shoot(t, pg, "order")
			}
			e.actions(t, pg, role, may, paid, open, sandbox)

			pg.Go(e.base + "/orders/" + e.orders["theirs"])
			if pg.LastStatus() != http.StatusNotFound {
				t.Errorf("another merchant's order answered %d, want 404", pg.LastStatus())
			}
			pg.AllowErrorStatus(http.StatusNotFound)
			if shots {
				shoot(t, pg, "not-found")
			}
		})
	}
}

// actions does every action the role may through the page's forms, and
// forges every one it may not: 403, and the command side never asked.
func (e *env) actions(t *testing.T, pg *browser.Page, role access.Role, may powers, paid, open, sandbox string) {
	t.Helper()
	type action struct {
		name    string
		allowed bool
		order   string
		form    string
		fields  map[string]string
		call    string
	}
	for _, a := range []action{
		{"refund", may.refund, paid, "refund", map[string]string{"amount": "10.00", "reason": "damaged"}, "refund " + paid + " 10.00"},
		{"resend", may.resend, paid, "resend", nil, "resend " + paid},
		{"cancel", may.cancel, open, "cancel", nil, "cancel " + open},
		{"sandbox", may.sandbox, sandbox, "sandbox-pay", map[string]string{"to": "paid"}, "sandbox " + sandbox + " paid"},
	} {
		before := len(e.store.called())
		state := e.store.get(a.order)
		pg.Go(e.base + "/orders/" + a.order)
		if !a.allowed {
			if has(pg, `[data-action="`+a.form+`"]`) {
				t.Errorf("%s: the %s form is offered", role, a.name)
			}
			fields := map[string]string{"csrf": csrf(pg)}
			for k, v := range a.fields {
				fields[k] = v
			}
			path := fmt.Sprintf("%s/orders/%s/%s", Base, a.order, strings.TrimSuffix(a.form, "-pay"))
			if st := forge(t, pg, path, fields); st != http.StatusForbidden {
				t.Errorf("%s may not %s: answered %d, want 403", role, a.name, st)
			}
			if n := len(e.store.called()); n != before || e.store.get(a.order).Status != state.Status || e.store.get(a.order).RefundReserved != state.RefundReserved {
				t.Errorf("%s may not %s, yet the command side was asked (%v)", role, a.name, e.store.called()[before:])
			}
			continue
		}
		sel := `form[data-action="` + a.form + `"]`
		for k, v := range a.fields {
			if k != "to" {
				pg.Fill(sel+` [name="`+k+`"]`, v)
			}
		}
		pg.Submit(sel)
		if a.name == "refund" { // the second step: nothing refunded until confirmed
			if txt := pg.Text("[data-refund-confirm]"); !strings.Contains(txt, "10.00 CNY") || !strings.Contains(txt, "cannot be undone") {
				t.Errorf("%s refund confirmation: %q", role, txt)
			}
			if got := e.store.called(); len(got) != before {
				t.Errorf("%s refund: the command side was asked %v before the confirmation", role, got[before:])
			}
			if role == access.RoleOwner {
				shoot(t, pg, "refund-confirm")
			}
			pg.Submit(`form[data-action="refund-confirm"]`)
		}
		if pg.LastStatus() != http.StatusOK || !has(pg, ".flash") {
			t.Errorf("%s %s: page %d without its notice", role, a.name, pg.LastStatus())
		}
		if got := e.store.called(); len(got) != before+1 || got[before] != a.call {
			t.Errorf("%s %s: command side asked %v, want %q", role, a.name, got[before:], a.call)
		}
	}
	if role == access.RoleOwner {
		// A refused refund form: the problem next to its field, the input kept.
		pg.Go(e.base + "/orders/" + paid)
		before := len(e.store.called())
		pg.Fill(`form[data-action="refund"] [name="amount"]`, "99999.00")
		pg.Fill(`form[data-action="refund"] [name="reason"]`, "too much")
		pg.Submit(`form[data-action="refund"]`)
		if pg.LastStatus() != http.StatusBadRequest || !strings.Contains(pg.Text(`[data-field-error="amount"]`), "left to refund") {
			t.Errorf("a refund over what is left: %d without the error next to the amount", pg.LastStatus())
		}
		var kept string
		pg.Eval(`document.querySelector('#refund-amount').value + '|' + document.querySelector('#refund-reason').value`, &kept)
		if kept != "99999.00|too much" {
			t.Errorf("the refused form kept %q", kept)
		}
		pg.AllowErrorStatus(http.StatusBadRequest)
		shoot(t, pg, "refund-error")
		if st := forge(t, pg, Base+"/orders/"+paid+"/resend", map[string]string{}); st != http.StatusForbidden {
			t.Errorf("a write without the CSRF token answered %d, want 403", st)
		}
		tok := csrf(pg)
		wrong := map[bool]string{true: "y", false: "x"}[strings.HasPrefix(tok, "x")] + tok[1:] // never the token itself
		if st := forge(t, pg, Base+"/orders/"+paid+"/refund", map[string]string{"csrf": wrong, "reason": "r"}); st != http.StatusForbidden {
			t.Errorf("a write with a wrong CSRF token answered %d, want 403", st)
		}
		if len(e.store.called()) != before {
			t.Errorf("a write without its token reached the command side: %v", e.store.called()[before:])
		}
		shoot(t, pg, "forbidden")
	}
}

// causal is the seeded paid order's timeline as it happened: each webhook
// attempt after the event it carries.
var causal = []string{"tl_created", "tl_method", "tl_init_failed", "tl_provider", "tl_notification", "tl_paid",
	"tl_webhook_paid", "tl_webhook_paid", "tl_refund", "tl_webhook_refund"}

// checkTruth reads the seeded paid order's page as the role sees it: the
// timeline in causal order, each webhook attempt linked to the order's
// deliveries on the Webhooks page, and no internal field.
func (e *env) checkTruth(t *testing.T, pg *browser.Page, role access.Role) {
	t.Helper()
	var kinds []string
	pg.Eval(`[...document.querySelectorAll('[data-timeline] li')].map(li => li.dataset.kind)`, &kinds)
	if strings.Join(kinds, " ") != strings.Join(causal, " ") {
		t.Errorf("timeline\n got  %v\n want %v", kinds, causal)
	}
	var links []string
	pg.Eval(`[...document.querySelectorAll('[data-timeline] a[data-webhook-link]')].map(a => a.getAttribute('href'))`, &links)
	want := Base + "/webhooks?q=" + e.orders["paid"]
	if len(links) != 3 || links[0] != want {
		t.Errorf("%s: webhook attempts link to %v, want 3 × %s", role, links, want)
	}
	if fields := pg.Text("dl.fields"); strings.Contains(fields, "Version") {
		t.Errorf("the merchant's order page shows an internal field: %q", fields)
	}
	if badge := strings.TrimSpace(pg.Text("[data-order-status]")); badge != "Partially refunded" {
		t.Errorf("7.00 of 120.50 refunded reads %q, want Partially refunded", badge)
	}
	var method string
	pg.Eval(`document.querySelector('dl.fields [data-method]').title + ' ' + document.querySelector('dl.fields [data-method]').textContent`, &method)
	if method != "wallet_a Wallet A" {
		t.Errorf("the method reads %q, want its payers' name with the code in its tooltip", method)
	}
}
