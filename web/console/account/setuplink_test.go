package account

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
)

// TestSetupLinkOnThePublicURL: the setup link an invitation or a reissue
// shows starts with the configured public URL, whatever Host and
// X-Forwarded-Host the request names (fiber believes those from anyone by
// default, as this test's app does).
func TestSetupLinkOnThePublicURL(t *testing.T) {
	e := newEnv(t)
	owner := e.person(access.RoleOwner)
	other := teamUser(t, e, "lost@shop.test")
	for _, tc := range []struct {
		name string
		path string
		vals url.Values
	}{
		{"invite", "/team/invite", url.Values{"email": {"new@shop.test"}, "role": {"viewer"}}},
		{"reissue", "/team/users/" + other + "/reissue", url.Values{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.vals.Set("csrf", owner.CSRF)
			req := httptest.NewRequest(http.MethodPost, base+tc.path, strings.NewReader(tc.vals.Encode()))
			req.Host = "evil.example"
			req.Header.Set("X-Forwarded-Host", "evil.example")
			req.Header.Set("X-Forwarded-Proto", "https")
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: "gw_console", Value: owner.ID})
			res, err := e.app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK || strings.Contains(string(b), "evil.example") || !strings.Contains(string(b), e.url+"/setup/") {
				t.Fatalf("%d: the setup link is not on %s, or names evil.example:\n%s", res.StatusCode, e.url, b)
			}
		})
	}
}
