package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
)

// TestAuditedFormsRefuseBadText: every audited form of the console, sent
// a value that is not UTF-8 or longer than audit.MaxText, is refused with
// a 400 before the command side is asked (no change) and leaves no audit
// entry; each form with good values acts and is audited. The first case
// is the red team's: a refund whose reason was not UTF-8 was made, then
// its entry refused (500, no entry).
func TestAuditedFormsRefuseBadText(t *testing.T) {
	e := newEnv(t)
	c, tok := e.session(t, access.RoleOwner)
	long := strings.Repeat("é", 257)
	path := func(name, op string) string { return Base + "/orders/" + e.orders[name] + "/" + op }
	for _, tc := range []struct {
		name   string
		path   string
		form   url.Values
		action string // "": refused with 400, nothing done, no entry
	}{
		{"refund reason not UTF-8 (red team)", path("paid", "refund"), url.Values{"reason": {"no-trace\xff"}}, ""},
		{"refund reason over-long", path("paid", "refund"), url.Values{"reason": {long}}, ""},
		{"refund reason with a control character", path("paid", "refund"), url.Values{"reason": {"a\x00b"}}, ""},
		{"resend refund id not UTF-8", path("paid", "resend"), url.Values{"refund": {"rf\xff"}}, ""},
		{"resend refund id over-long", path("paid", "resend"), url.Values{"refund": {long}}, ""},
		// Within audit.Text's bound, but "refund:ID" is over an entry
		// field's 256 bytes: the entry's own check refuses it.
		{"resend refund id past the target's bound", path("paid", "resend"), url.Values{"refund": {strings.Repeat("r", 256)}}, ""},
		{"sandbox target not UTF-8", path("sandbox", "sandbox"), url.Values{"to": {"paid\xff"}}, ""},
		{"sandbox target over-long", path("sandbox", "sandbox"), url.Values{"to": {long}}, ""},
		{"cancel of an order id not UTF-8", Base + "/orders/" + url.PathEscape(e.orders["open"]+"\xff") + "/cancel", url.Values{}, ""},
		{"cancel of an order id over-long", Base + "/orders/" + url.PathEscape(e.orders["open"]+long) + "/cancel", url.Values{}, ""},
		{"refund", path("paid", "refund"), url.Values{"reason": {"wrong size, é"}, "amount": {"1.00"}, "confirm": {"1"}}, "order.refund"},
		{"resend", path("paid", "resend"), url.Values{}, "webhook.resend"},
		{"sandbox", path("sandbox", "sandbox"), url.Values{"to": {"paid"}}, "order.sandbox_paid"},
		{"cancel", path("open", "cancel"), url.Values{}, "order.cancel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, entries := len(e.store.called()), strings.Count(e.auditLog(t), "\n")
			tc.form.Set("csrf", tok)
			res, body := e.do(t, http.MethodPost, tc.path, tc.form, c)
			calls, entries = len(e.store.called())-calls, strings.Count(e.auditLog(t), "\n")-entries
			if tc.action == "" {
				if res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusNotFound {
					t.Fatalf("answered %d, want a 400-class refusal:\n%s", res.StatusCode, body)
				}
				if calls != 0 || entries != 0 {
					t.Fatalf("refused, yet %d command calls and %d audit entries", calls, entries)
				}
				return
			}
			if res.StatusCode != http.StatusSeeOther || calls != 1 || entries != 1 {
				t.Fatalf("answered %d with %d command calls and %d audit entries, want 303, 1 and 1:\n%s", res.StatusCode, calls, entries, body)
			}
			lines := strings.Split(strings.TrimSpace(e.auditLog(t)), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.action+" merchant owner@shop.test") {
				t.Fatalf("the last entry is %q, want %s", last, tc.action)
			}
		})
	}
}
