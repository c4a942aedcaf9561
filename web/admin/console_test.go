package admin

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// writes are every form of the console, with valid values.
func (e *env) writes() []struct {
	path string
	vals url.Values
} {
	return []struct {
		path string
		vals url.Values
	}{
		{"/admin/usdt/" + e.review + "/approve", url.Values{"note": {"seen on tronscan"}}},
		{"/admin/usdt/" + e.review + "/reject", url.Values{"reason": {"amount short"}}},
		{"/admin/merchants", url.Values{"name": {"New shop"}, "mode": {"sandbox"}}},
		{"/admin/merchants/" + e.appid + "/state", url.Values{"state": {"disable"}, "reason": {"chargebacks"}}},
		{"/admin/merchants/" + e.appid + "/credit", url.Values{"currency": {"CNY"}, "amount": {"10.00"}}},
		{"/admin/merchants/" + e.appid + "/limits", url.Values{"create": {"5/s"}}},
		{"/admin/settings/fx", url.Values{"base": {"USDT"}, "quote": {"CNY"}, "rate": {"7.30"}}},
		{"/admin/settings/networks", url.Values{"name": {"TRC20"}, "mode": {"dual"}, "addresses": {"TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj"}}},
		{"/admin/fees", url.Values{"method": {"wallet_a"}, "currency": {"USD"}, "bps": {"150"}}},
		{"/admin/fees/clear", url.Values{"method": {"wallet_a"}, "currency": {"CNY"}}},
		{"/admin/channels/set", url.Values{"ref": {"wallet_a.alt"}, "weight": {"7"}, "serve": {"all"}}},
		{"/admin/channels/state", url.Values{"ref": {"wallet_a.alt"}, "to": {"disable"}}},
		{"/admin/channels/breaker", url.Values{"ref": {"wallet_a.alt"}, "to": {"open"}, "reason": {"provider audit"}}},
		{"/admin/channels/mode", url.Values{"method": {"wallet_a"}, "mode": {"weighted"}}},
		{"/admin/channels/keywords", url.Values{"words": {"account restricted"}}},
		{"/admin/channels/pin", url.Values{"merchant": {e.appid}, "method": {"wallet_a"}, "ids": {"alt"}}},
		{"/admin/exceptions/mismatch/" + e.review + "/handle", url.Values{"note": {"done"}}},
		{"/admin/exceptions/" + e.review + "/resend", url.Values{}},
		{"/admin/exceptions/" + e.mismatch + "/refund", url.Values{"amount": {"200.00"}, "currency": {"CNY"}, "note": {"RF-1"}, "confirm": {"1"}}},
		{"/admin/merchants/" + e.appid + "/terms", url.Values{"settle": {"instant"}, "allow_negative": {"1"}}},
		{"/admin/merchants/" + e.appid + "/adjust", url.Values{"amount": {"10.00"}, "currency": {"USD"}, "reason": {"goodwill"}}},
		{"/admin/adjustments/" + e.request + "/approve", url.Values{}},
		{"/admin/adjustments/" + e.request + "/reject", url.Values{"reason": {"not ours"}}},
		{"/admin/reconciliation", url.Values{"channel": {"wallet_a.default"}, "day": {"2026-11-27"}}},
	}
}

// TestRolesOnEveryForm: the auditor is refused every form (403) and
// nothing changes; support is refused the USDT approve and reject, the
// merchant and settings forms (403, nothing changed), and may only handle
// exceptions and resend webhooks.
func TestRolesOnEveryForm(t *testing.T) {
	e := newEnv(t)
	for _, who := range []struct {
		email   string
		allowed map[string]bool // path suffixes the role's permission lets through to the use case
	}{
		{"al@ops.test", nil},
		{"sam@ops.test", map[string]bool{"/handle": true, "/resend": true}},
	} {
		s := e.session(t, access.RealmOperator, who.email)
		for _, w := range e.writes() {
			allowed := false
			for suffix := range who.allowed {
				allowed = allowed || strings.HasSuffix(w.path, suffix)
			}
			if allowed {
				continue
			}
			t.Run(who.email+" "+w.path, func(t *testing.T) {
				before := e.state(t)
				w.vals.Set("csrf", s.CSRF)
				res := e.do(t, post(w.path, s, w.vals))
				if res.StatusCode != http.StatusForbidden {
					t.Fatalf("%s: %d, want 403", w.path, res.StatusCode)
				}
				if after := e.state(t); after != before {
					t.Fatalf("refused, yet Redis changed")
				}
			})
		}
	}
	o, err := e.store.Get(context.Background(), e.review)
	if err != nil || o.Status != schema.StatusReady || o.Review != usdt.OutcomeWaiting {
		t.Fatalf("the review after the refusals: %+v %v", o, err)
	}
}

// TestAdminDecidesWithCSRFOnly: the admin's approve without the session's
// CSRF token (or with another session's) is refused with 403 and changes
// nothing; with it the order is paid and the decision is in its history.
func TestAdminDecidesWithCSRFOnly(t *testing.T) {
	e := newEnv(t)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	other := e.session(t, access.RealmOperator, "sam@ops.test")
	path := "/admin/usdt/" + e.review + "/approve"
	before := e.state(t)
	for name, vals := range map[string]url.Values{
		"no token":              {"note": {"checked"}},
		"another session's":     {"note": {"checked"}, "csrf": {other.CSRF}},
		"token of wrong length": {"note": {"checked"}, "csrf": {admin.CSRF[:10]}},
	} {
		if res := e.do(t, post(path, admin, vals)); res.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %d, want 403", name, res.StatusCode)
		}
	}
	if e.state(t) != before {
		t.Fatal("a refused approve changed Redis")
	}
	res := e.do(t, post(path, admin, url.Values{"note": {"seen on tronscan"}, "csrf": {admin.CSRF}}))
	if res.StatusCode != http.StatusSeeOther {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("approve: %d %s", res.StatusCode, body)
	}
	o, err := e.store.Get(context.Background(), e.review)
	if err != nil || o.Status != schema.StatusPaid {
		t.Fatalf("after approve: %+v %v", o, err)
	}
	page := e.do(t, get("/admin/usdt/"+e.review, admin))
	body, _ := io.ReadAll(page.Body)
	if page.StatusCode != 200 || !strings.Contains(string(body), "admin:ann@ops.test") || !strings.Contains(string(body), "seen on tronscan") {
		t.Fatalf("review page after approve: %d\n%s", page.StatusCode, body)
	}
}

// TestEveryPageForEveryRole: each operator role reads every page; a
// merchant user's session is no session here (the way to login); nobody
// logged in is sent to log in; the approve form is shown only to admin.
func TestEveryPageForEveryRole(t *testing.T) {
	e := newEnv(t)
	pages := []string{"/admin/exceptions", "/admin/usdt", "/admin/usdt?state=all", "/admin/usdt/" + e.review, "/admin/merchants",
		"/admin/merchants?q=tea", "/admin/merchants/" + e.appid, "/admin/settings", "/admin/providers", "/admin/audit",
		"/admin/reconciliation"}
	for _, email := range []string{"ann@ops.test", "sam@ops.test", "al@ops.test"} {
		s := e.session(t, access.RealmOperator, email)
		for _, p := range pages {
			res := e.do(t, get(p, s))
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != 200 {
				t.Fatalf("%s %s: %d\n%s", email, p, res.StatusCode, body)
			}
			if strings.HasPrefix(p, "/admin/usdt/") && strings.Contains(string(body), "data-approve") != (email == "ann@ops.test") {
				t.Fatalf("%s sees the approve form: %v", email, !(email == "ann@ops.test"))
			}
		}
	}
	owner := e.session(t, access.RealmMerchant, "owner@shop.test")
	for _, s := range []*access.Session{owner, nil} {
		res := e.do(t, get("/admin/exceptions", s))
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/admin/login") {
			t.Fatalf("merchant session or none on /admin: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
	}
	csrf := owner.CSRF
	before := e.state(t)
	if res := e.do(t, post("/admin/settings/fx", owner, url.Values{"csrf": {csrf}, "base": {"USDT"}, "quote": {"CNY"}, "rate": {"9"}})); res.StatusCode == http.StatusSeeOther && res.Header.Get("Location") == "/admin/settings?done=rate" {
		t.Fatal("a merchant session set a rate")
	}
	if e.state(t) != before {
		t.Fatal("a merchant session's form changed Redis")
	}
}

// TestAuditPageSearchAndCSV: an action taken in the console is found on the
// audit page by actor, target and action (and not by another actor), and
// the CSV export holds it under the header; a bad time is refused.
func TestAuditPageSearchAndCSV(t *testing.T) {
	e := newEnv(t)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	auditor := e.session(t, access.RealmOperator, "al@ops.test")
	res := e.do(t, post("/admin/settings/fx", admin, url.Values{"csrf": {admin.CSRF}, "base": {"USDT"}, "quote": {"CNY"}, "rate": {"7.31"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("set rate: %d", res.StatusCode)
	}
	read := func(path string) (int, string) {
		res := e.do(t, get(path, auditor))
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	testenv.Eventually(t, 30*time.Second, "the rate's entry on the audit page", func() bool {
		_, body := read("/admin/audit?actor=ann@ops.test&action=fx.set&target=fx:USDT/CNY")
		return strings.Contains(body, `data-entry="fx.set"`)
	})
	if _, body := read("/admin/audit?actor=sam@ops.test&action=fx.set"); strings.Contains(body, `data-entry="fx.set"`) {
		t.Fatal("another actor's search found the entry")
	}
	if st, _ := read("/admin/audit?from=yesterday"); st != http.StatusBadRequest {
		t.Fatalf("a bad time: %d", st)
	}
	st, csv := read("/admin/audit.csv?action=fx.set")
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if st != 200 || len(lines) != 2 || !strings.Contains(lines[1], "fx.set") || !strings.Contains(lines[1], "ann@ops.test") {
		t.Fatalf("export: %d\n%s", st, csv)
	}
}
