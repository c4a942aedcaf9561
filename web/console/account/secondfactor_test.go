package account

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/web/frame/frametest"
)

// personWithoutTOTP enrols a user of the shop with role and a password
// only (the merchant does not require TOTP) and returns a live session.
func (e *env) personWithoutTOTP(role access.Role) *access.Session {
	e.t.Helper()
	ctx := context.Background()
	email := string(role) + "-nototp@shop.test"
	_, token, err := access.NewTeam(e.accounts).Create(ctx, access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, _, err := e.accounts.CompleteSetup(ctx, access.Setup{Realm: access.RealmMerchant, Token: token, Password: frametest.Password, Source: "127.0.0.1"}); err != nil {
		e.t.Fatal(err)
	}
	return frametest.Session(e.t, e.accounts, access.RealmMerchant, email, "")
}

// TestSecretsFormsNeedTOTP is the attack: an owner or a developer without
// TOTP (a phished password is enough to log in) posts the callback and
// rotation forms directly, with a valid CSRF token. Each is refused (403)
// with the sentence that sends them to set TOTP up, and nothing changes;
// the Developers page offers none of those forms, only that sentence.
func TestSecretsFormsNeedTOTP(t *testing.T) {
	e := newEnv(t)
	forms := map[string]url.Values{
		"/developers/callback":              {"callback": {"https://93.184.216.35/steal"}},
		"/developers/rotate/api-key":        {"grace": {"24"}},
		"/developers/rotate/query-key":      {},
		"/developers/rotate/webhook-secret": {},
		"/developers/confirm-webhook-key":   {},
	}
	for _, r := range []access.Role{access.RoleOwner, access.RoleDeveloper} {
		s := e.personWithoutTOTP(r)
		for path, vals := range forms {
			t.Run(string(r)+path, func(t *testing.T) {
				v := url.Values{"csrf": {s.CSRF}}
				for k, x := range vals {
					v[k] = x
				}
				before := e.fingerprint()
				res := e.do(s, http.MethodPost, path, v)
				b, _ := io.ReadAll(res.Body)
				if res.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "set up TOTP") {
					t.Fatalf("%d, want 403 sending them to set TOTP up:\n%s", res.StatusCode, b)
				}
				if e.fingerprint() != before {
					t.Fatal("refused, but something changed")
				}
			})
		}
		code, body := e.page(s, "/developers")
		if code != http.StatusOK || !strings.Contains(body, "data-needs-totp") {
			t.Fatalf("%s: developers page %d without the TOTP notice", r, code)
		}
		for _, form := range []string{"data-callback", "data-rotate=", "data-confirm-webhook-key"} {
			if strings.Contains(body, form) {
				t.Fatalf("%s without TOTP is offered %s", r, form)
			}
		}
	}
	if a, _ := e.merchants.Get(t.Context(), e.shop.AppID); a.Callback != e.shop.Callback || a.APIKey != e.shop.APIKey {
		t.Fatal("the callback or the API key moved")
	}
	// With TOTP, the same role is offered the forms.
	if _, body := e.page(e.person(access.RoleDeveloper), "/developers"); strings.Contains(body, "data-needs-totp") ||
		!strings.Contains(body, "data-callback") || !strings.Contains(body, "data-rotate=") {
		t.Fatal("a developer with TOTP is not offered the callback and rotation forms")
	}
}

// TestDeveloperWithoutTOTPInBrowser: a developer who logged in with a
// password only sees the Developers page without the rotation and
// callback forms, with the sentence that sends them to set TOTP up; the
// callback form forged in their browser is refused with that sentence and
// the next step, and the callback stays.
func TestDeveloperWithoutTOTPInBrowser(t *testing.T) {
	e := newEnv(t)
	e.personWithoutTOTP(access.RoleDeveloper) // the account; the browser logs in itself
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)
	frametest.Login(t, pg, e.url, "developer-nototp@shop.test", frametest.Password, "")
	pg.Go(e.url + "/developers")
	if !has(pg, "[data-needs-totp]") || has(pg, "form[data-callback]") || has(pg, "form[data-rotate]") {
		t.Fatal("the Developers page offers the secrets' forms to a developer without TOTP, or does not say why not")
	}
	shoot(t, pg, "developers-no-totp")
	if st := forge(t, pg, base+"/developers/callback", map[string]string{"callback": "https://93.184.216.35/steal"}, true); st != http.StatusForbidden {
		t.Fatalf("the forged callback change answered %d, want 403", st)
	}
	if txt := pg.Text("main"); !strings.Contains(txt, "set up TOTP") || !has(pg, "[data-next-link]") {
		t.Fatalf("the refusal says %q", txt)
	}
	pg.AllowErrorStatus(http.StatusForbidden)
	shoot(t, pg, "developers-no-totp-refused")
	if a, _ := e.merchants.Get(t.Context(), e.shop.AppID); a.Callback != e.shop.Callback {
		t.Fatal("the callback moved")
	}
}
