package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
)

// TestRefundIsConfirmed: the refund form never refunds by itself. A good
// form is answered with the confirmation (amount and currency, what the
// payer gets back, what is left, that it cannot be undone) and nothing
// asked of the command side; a bad one is the order page again with the
// problem next to its field and what was typed kept (400); only the
// confirmation's form refunds, checked again against the order as it is
// then.
func TestRefundIsConfirmed(t *testing.T) {
	e := newEnv(t)
	c, tok := e.session(t, access.RoleFinance)
	path := Base + "/orders/" + e.orders["paid"] + "/refund" // 120.50 CNY paid, 7.00 refunded
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string // in the page
	}{
		{"part", url.Values{"amount": {"7.00"}, "reason": {"damaged goods"}}, http.StatusOK,
			[]string{"data-refund-confirm", "7.00 CNY", "of the 120.50 CNY they paid", "106.50 CNY can still be refunded",
				"cannot be undone", `name="confirm" value="1"`, `name="amount" value="7.00"`, "damaged goods"}},
		{"all that is left", url.Values{"reason": {"damaged goods"}}, http.StatusOK,
			[]string{"data-refund-confirm", "113.50 CNY", "everything that is left", `name="amount" value="113.50"`}},
		{"amount not a number", url.Values{"amount": {"seven"}, "reason": {"damaged goods"}}, http.StatusBadRequest,
			[]string{`data-field-error="amount"`, "positive number like 12.50", `value="seven"`, `value="damaged goods"`, `aria-invalid="true"`}},
		{"amount over what is left", url.Values{"amount": {"500.00"}, "reason": {"damaged goods"}}, http.StatusBadRequest,
			[]string{`data-field-error="amount"`, "At most 113.50 CNY is left", `value="500.00"`}},
		{"no reason", url.Values{"amount": {"7.00"}}, http.StatusBadRequest,
			[]string{`data-field-error="reason"`, "Say why you refund", `value="7.00"`}},
		{"reason not text", url.Values{"amount": {"7.00"}, "reason": {"a\x00b"}}, http.StatusBadRequest,
			[]string{`data-field-error="reason"`, `value="ab"`}},
		{"back to change it", url.Values{"amount": {"7.00"}, "reason": {"damaged goods"}, "edit": {"1"}}, http.StatusOK,
			[]string{`data-action="refund"`, `value="7.00"`, `value="damaged goods"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", tok)
			res, body := e.do(t, http.MethodPost, path, tc.form, c)
			if res.StatusCode != tc.status {
				t.Fatalf("answered %d, want %d:\n%s", res.StatusCode, tc.status, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if got := e.store.called(); len(got) != 0 {
				t.Fatalf("the command side was asked %v before any confirmation", got)
			}
		})
	}
	if log := e.auditLog(t); strings.Contains(log, "order.refund") {
		t.Fatalf("unconfirmed refunds in the audit log:\n%s", log)
	}
	res, _ := e.do(t, http.MethodPost, path, url.Values{"csrf": {tok}, "amount": {"100.00"}, "reason": {"damaged goods"}, "confirm": {"1"}}, c)
	if res.StatusCode != http.StatusSeeOther || len(e.store.called()) != 1 {
		t.Fatalf("the confirmation answered %d, command side asked %v", res.StatusCode, e.store.called())
	}
	// A second confirmation of a page shown before the first refund: more
	// than is left now. Checked again, said next to the amount.
	res, body := e.do(t, http.MethodPost, path, url.Values{"csrf": {tok}, "amount": {"100.00"}, "reason": {"damaged goods"}, "confirm": {"1"}}, c)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "At most 13.50 CNY is left") || !strings.Contains(body, `value="100.00"`) ||
		len(e.store.called()) != 1 {
		t.Fatalf("a stale confirmation answered %d:\n%s", res.StatusCode, body)
	}
}
