package admin

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
)

// TestOperatorRefundIsConfirmed: neither refund form of the exceptions
// queue acts by itself. The provider refund answers with what the payer
// gets back through which provider and that it cannot be undone, and the
// provider is not asked; the record answers with what is recorded, and
// nothing changes; a record with a problem comes back with it next to its
// field and the input kept (400). Only confirm=1 acts.
func TestOperatorRefundIsConfirmed(t *testing.T) {
	e := newEnv(t)
	f := &countingRefunds{}
	e.exc.WithRefunds(oneFamily{f})
	id := refundableMismatch(t, e)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	send := func(path string, vals url.Values) (int, string) {
		t.Helper()
		vals.Set("csrf", admin.CSRF)
		res := e.do(t, post(path, admin, vals))
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, tc := range []struct {
		name   string
		path   string
		vals   url.Values
		status int
		want   []string
	}{
		{"provider refund", "/admin/exceptions/" + id + "/provider-refund", url.Values{}, 200,
			[]string{"data-confirm-provider-refund", "cannot be undone", `name="confirm" value="1"`}},
		{"record", "/admin/exceptions/" + e.mismatch + "/refund", url.Values{"amount": {"200"}, "currency": {"cny"}, "note": {"RF-1"}}, 200,
			[]string{"data-confirm-record-refund", "200.00 CNY", "cannot be undone", `name="note" value="RF-1"`}},
		{"record, amount not a number", "/admin/exceptions/" + e.mismatch + "/refund", url.Values{"amount": {"two"}, "currency": {"CNY"}, "note": {"RF-1"}}, 400,
			[]string{`data-field-error="amount"`, `value="two"`, `value="RF-1"`, `aria-invalid="true"`}},
		{"record, unknown currency and no note", "/admin/exceptions/" + e.mismatch + "/refund", url.Values{"amount": {"200.00"}, "currency": {"XYZ"}}, 400,
			[]string{`data-field-error="currency"`, `data-field-error="note"`, `value="200.00"`, `value="XYZ"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.state(t)
			st, body := send(tc.path, tc.vals)
			if st != tc.status {
				t.Fatalf("answered %d, want %d:\n%s", st, tc.status, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if e.state(t) != before || f.n() != 0 {
				t.Fatalf("unconfirmed, yet Redis changed or the provider was asked (%d)", f.n())
			}
		})
	}
	if st, body := send("/admin/exceptions/"+id+"/provider-refund", url.Values{"confirm": {"1"}}); st != http.StatusSeeOther || f.n() != 1 {
		t.Fatalf("the confirmed provider refund answered %d, provider asked %d times:\n%s", st, f.n(), body)
	}
	before := e.state(t)
	if st, _ := send("/admin/exceptions/"+e.mismatch+"/refund", url.Values{"amount": {"200.00"}, "currency": {"CNY"}, "note": {"RF-1"}, "confirm": {"1"}}); st != http.StatusSeeOther || e.state(t) == before {
		t.Fatalf("the confirmed record answered %d", st)
	}
}
