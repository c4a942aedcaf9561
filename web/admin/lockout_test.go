package admin

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestLockedOperatorNotice: an administrator sees a notice of a locked
// operator's second factor (with the CLI command that unlocks it) on the
// console's pages; support and auditors, who cannot unlock, do not.
func TestLockedOperatorNotice(t *testing.T) {
	e := newEnv(t)
	frametest.Enrol(t, e.acc, access.NewUser{Realm: access.RealmOperator, Email: "lost@ops.test", Role: access.RoleSupport}, e.clock.now())
	frametest.LockSecondFactor(t, e.rdb, access.RealmOperator, "lost@ops.test")
	for _, tc := range []struct {
		email string
		sees  bool
	}{{"ann@ops.test", true}, {"sam@ops.test", false}, {"al@ops.test", false}} {
		t.Run(tc.email, func(t *testing.T) {
			res := e.do(t, get("/admin/merchants", e.session(t, access.RealmOperator, tc.email)))
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("merchants page: %d", res.StatusCode)
			}
			if got := strings.Contains(string(b), "data-locks") && strings.Contains(string(b), "gateway operator unlock"); got != tc.sees {
				t.Fatalf("notice shown %v, want %v", got, tc.sees)
			}
		})
	}
}

// TestBrowserLockNotice: the administrator's notice of a locked operator
// at 360 and 1280 px (axe clean, nothing overflows).
func TestBrowserLockNotice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	frametest.Enrol(t, e.acc, access.NewUser{Realm: access.RealmOperator, Email: "lost@ops.test", Role: access.RoleSupport}, e.clock.now())
	frametest.LockSecondFactor(t, e.rdb, access.RealmOperator, "lost@ops.test")
	pg := browser.New(t).NewPage(browser.Wide)
	e.browserLogin(t, pg, base, "ann@ops.test")
	pg.Go(base + "/merchants")
	pg.WaitVisible("[data-locks]")
	if !strings.Contains(pg.Text("[data-locks]"), "gateway operator unlock EMAIL") {
		t.Fatalf("the notice: %q", pg.Text("[data-locks]"))
	}
	shoot(t, pg, "admin-locks")
	pg.AssertNoConsoleErrors(t)
}
