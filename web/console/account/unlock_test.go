package account

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/web/frame/frametest"
)

// lockedUser enrols a user of the shop and locks its second factor; its id.
func (e *env) lockedUser(t *testing.T, email string, role access.Role) string {
	t.Helper()
	_, a := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: role}, e.now)
	frametest.LockSecondFactor(t, e.rdb, access.RealmMerchant, email)
	return a.ID
}

// TestUnlockOnTheTeamPage: the owners see a locked user on every page and
// on the Team page, with an unlock form; others see no notice and no form;
// the owner's unlock works.
func TestUnlockOnTheTeamPage(t *testing.T) {
	e := newEnv(t)
	owner, viewer := e.person(access.RoleOwner), e.person(access.RoleViewer)
	locked := e.lockedUser(t, "locked@shop.test", access.RoleFinance)
	_, page := e.page(owner, "/team")
	if !strings.Contains(page, "data-locks") || !strings.Contains(page, "data-locked") || !strings.Contains(page, "/team/users/"+locked+"/unlock") {
		t.Fatalf("the owner's Team page shows no lock notice, badge or unlock form:\n%s", page)
	}
	if _, home := e.page(owner, "/"); !strings.Contains(home, "data-locks") || !strings.Contains(home, `<a href="`+base+`/team">Review and unlock`) {
		t.Fatal("the owner's home page shows no lock notice")
	}
	if _, vpage := e.page(viewer, "/team"); strings.Contains(vpage, "data-locks") || strings.Contains(vpage, "/unlock") {
		t.Fatal("a viewer sees the lock notice or the unlock form")
	}
	res := e.do(viewer, http.MethodPost, "/team/users/"+locked+"/unlock", url.Values{"csrf": {viewer.CSRF}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a viewer's unlock: %d, want 403", res.StatusCode)
	}
	res = e.do(owner, http.MethodPost, "/team/users/"+locked+"/unlock", url.Values{"csrf": {owner.CSRF}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "/team?done=unlock") {
		t.Fatalf("the owner's unlock: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if a, err := e.accounts.Get(context.Background(), locked); err != nil || a.SecondFactorLocked {
		t.Fatalf("still locked after the owner's unlock: %v", err)
	}
	if _, page := e.page(owner, "/team?done=unlock"); strings.Contains(page, "data-locks") || !strings.Contains(page, "authenticator codes work again") {
		t.Fatal("after the unlock: the notice stays, or no confirmation")
	}
}
