package account

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestSandboxBarOnEveryPage: every page of a sandbox merchant's console
// carries the sandbox bar (the frame's layout draws it), and no page of a
// live merchant's does.
func TestSandboxBarOnEveryPage(t *testing.T) {
	e := newEnv(t)
	sandbox := e.person(access.RoleOwner)
	secret, _ := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.other.AppID,
		Email: "owner@other.test", Role: access.RoleOwner}, e.now)
	live := frametest.Session(t, e.accounts, access.RealmMerchant, "owner@other.test", frametest.Code(t, secret, e.now.Add(30*time.Second)))
	for _, tc := range []struct {
		name string
		s    *access.Session
		bar  bool
	}{{"sandbox merchant", sandbox, true}, {"live merchant", live, false}} {
		for _, path := range []string{"/", "/webhooks", "/developers", "/balance", "/team", "/team/audit", "/no-such-page"} {
			t.Run(tc.name+" "+path, func(t *testing.T) {
				code, body := e.page(tc.s, path)
				if code == http.StatusFound || code == http.StatusSeeOther {
					t.Fatalf("%s: redirected (%d)", path, code)
				}
				if got := strings.Contains(body, "data-sandbox-bar"); got != tc.bar {
					t.Errorf("%s (%d): sandbox bar %v, want %v", path, code, got, tc.bar)
				}
			})
		}
	}
}
