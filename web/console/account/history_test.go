package account

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
)

// post sends a form with the session's CSRF token and returns the status
// and the page.
func (e *env) post(s *access.Session, path string, vals url.Values) (int, string) {
	e.t.Helper()
	vals.Set("csrf", s.CSRF)
	res := e.do(s, http.MethodPost, path, vals)
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, html.UnescapeString(string(b))
}

// TestSignatureDebuggerReadsTheJSONBody: the body a merchant posts to
// createorder is signed as the API reads it (a number as sent, null
// absent, sign and sign_type out), name=value lines still work, and a body
// that is not a flat JSON object is said so next to the field, the input
// kept.
func TestSignatureDebuggerReadsTheJSONBody(t *testing.T) {
	e := newEnv(t)
	dev := e.person(access.RoleDeveloper)
	app := e.shop.AppID
	for _, tc := range []struct {
		name, params, want string
	}{
		{"json body", `{"appid":"` + app + `","amount":100,"currency":"USD","note":null,"sign":"x","sign_type":"MD5"}`,
			"amount=100&appid=" + app + "&currency=USD{key}"},
		{"json body after blank lines", "\n  {\"amount\": 7.50, \"appid\": \"" + app + "\"}\n", "amount=7.50&appid=" + app + "{key}"},
		{"name=value lines", "appid=" + app + "\namount=100\ncurrency=USD", "amount=100&appid=" + app + "&currency=USD{key}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, page := e.post(dev, "/developers/signature", url.Values{"endpoint": {"other"}, "params": {tc.params}})
			if code != http.StatusOK || !strings.Contains(page, "<code data-signed>"+tc.want+"</code>") {
				t.Fatalf("%d: want the signed string %q in\n%s", code, tc.want, page)
			}
		})
	}
	for _, bad := range []string{`{"amount":{"value":1}}`, `{"amount":1`, `{"amount":1,"amount":2}`} {
		code, page := e.post(dev, "/developers/signature", url.Values{"endpoint": {"other"}, "params": {bad}})
		if code != http.StatusOK || !strings.Contains(page, "data-params-error") || !strings.Contains(page, bad) ||
			strings.Contains(page, "data-signed") {
			t.Fatalf("%q: %d, want the field's error with the input kept and no result\n%s", bad, code, page)
		}
	}
}
