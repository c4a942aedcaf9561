package admin

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/fixture"
)

// auditForm is one audited form of the console: its path, good values,
// the field a bad value goes in ("" for the path's id) and its action.
type auditForm struct {
	name, path string
	vals       url.Values
	field      string
	action     string
}

// auditForms are every audited form of the console with values that work
// once each, in this order.
func (e *env) auditForms(t *testing.T) []auditForm {
	t.Helper()
	second := waitingReview(t, e.store, e.appid)
	return []auditForm{
		{"usdt approve", "/admin/usdt/" + e.review + "/approve", url.Values{"note": {"seen on tronscan"}}, "note", "usdt.review_approve"},
		{"usdt reject", "/admin/usdt/" + second + "/reject", url.Values{"reason": {"amount short"}, "note": {"n"}}, "reason", "usdt.review_reject"},
		{"merchant create", "/admin/merchants", url.Values{"name": {"New shop"}, "mode": {"sandbox"}}, "name", "merchant.create"},
		{"merchant state (red team: reason=x%FF)", "/admin/merchants/" + e.appid + "/state", url.Values{"state": {"disable"}, "reason": {"chargebacks"}}, "reason", "merchant.disable"},
		{"merchant credit", "/admin/merchants/" + e.appid + "/credit", url.Values{"currency": {"CNY"}, "amount": {"10.00"}}, "currency", "merchant.credit"},
		{"merchant limits", "/admin/merchants/" + e.appid + "/limits", url.Values{"create": {"5/s"}}, "create", "merchant.set_limits"},
		{"fx rate", "/admin/settings/fx", url.Values{"base": {"USDT"}, "quote": {"CNY"}, "rate": {"7.30"}}, "base", "fx.set"},
		{"usdt network", "/admin/settings/networks", url.Values{"name": {"TRC20"}, "mode": {"dual"}, "addresses": {"TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj"}}, "name", "usdt.network_set"},
		{"exception refund", "/admin/exceptions/" + e.mismatch + "/refund", url.Values{"amount": {"200.00"}, "currency": {"CNY"}, "note": {"RF-1"}, "confirm": {"1"}}, "note", "exception.refund_recorded"},
		{"exception handle", "/admin/exceptions/mismatch/" + e.mismatch + "/handle", url.Values{"note": {"done"}}, "note", "exception.handle"},
		{"exception resend", "/admin/exceptions/" + e.dead + "/resend", url.Values{}, "", "webhook.resend"},
		{"epay types set", "/admin/epay-types", url.Values{"mapping": {"t1=wallet_b"}}, "mapping", "epay_types.set"},
	}
}

// TestAuditedFormsRefuseBadText: every audited form of the operator
// console, sent a value that is not UTF-8 or one over the bound, answers a
// 400-class refusal and leaves Redis as it was (no change, no entry); with
// good values each acts and appends its entry. "merchant state not UTF-8"
// is the red team's: the merchant was disabled, then its entry refused.
func TestAuditedFormsRefuseBadText(t *testing.T) {
	e := newEnv(t)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	forms := e.auditForms(t)
	long := strings.Repeat("é", audit.MaxText+1)
	bad := func(f auditForm, v string) (string, url.Values) {
		vals := url.Values{}
		for k, vs := range f.vals {
			vals[k] = append([]string(nil), vs...)
		}
		if f.field == "" {
			i := strings.LastIndex(f.path, "/")
			j := strings.LastIndex(f.path[:i], "/")
			return f.path[:j+1] + url.PathEscape(f.path[j+1:i]+v) + f.path[i:], vals
		}
		vals.Set(f.field, v)
		return f.path, vals
	}
	send := func(t *testing.T, path string, vals url.Values) (int, string) {
		t.Helper()
		vals.Set("csrf", admin.CSRF)
		res := e.do(t, post(path, admin, vals))
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	for _, f := range forms {
		for _, b := range []struct{ name, v string }{{"not UTF-8", "x\xff"}, {"over-long", long}} {
			t.Run(f.name+" "+b.name, func(t *testing.T) {
				before := e.state(t)
				path, vals := bad(f, b.v)
				st, body := send(t, path, vals)
				if st != http.StatusBadRequest && st != http.StatusNotFound {
					t.Fatalf("answered %d, want a 400-class refusal:\n%s", st, body)
				}
				if e.state(t) != before {
					t.Fatal("refused, yet Redis changed")
				}
			})
		}
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			before := fixture.AuditActions(t, e.rdb)[f.action]
			if st, body := send(t, f.path, f.vals); st != http.StatusSeeOther {
				t.Fatalf("answered %d, want 303:\n%s", st, body)
			}
			if n := fixture.AuditActions(t, e.rdb)[f.action]; n != before+1 {
				t.Fatalf("%d %s entries, want %d", n, f.action, before+1)
			}
		})
	}
}
