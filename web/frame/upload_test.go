package frame

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestUploadBound: a path configured for uploads takes a form past
// MaxFormBytes up to its own bound, and no further; every other path
// keeps MaxFormBytes.
func TestUploadBound(t *testing.T) {
	e := newFrameEnv(t, nil)
	e.ui.cfg.Uploads = map[string]int{"/demo/act": 256 << 10}
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	owner := frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	sized := func(path string, n int) *http.Request {
		return form(path, url.Values{"csrf": {owner.CSRF}, "pad": {strings.Repeat("a", n)}}, &http.Cookie{Name: "gw_demo", Value: owner.ID})
	}
	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"an upload under its bound", sized("/demo/act", 100<<10), http.StatusOK},
		{"an upload over its bound", sized("/demo/act", 300<<10), http.StatusRequestEntityTooLarge},
		{"the same size elsewhere", sized("/demo/logout", 100<<10), http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := e.do(t, tc.req); res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
		})
	}
}
