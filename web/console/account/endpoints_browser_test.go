package account

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestEndpointsInBrowserEveryRole: a developer adds an endpoint on the
// Webhooks page (its secret shown once), opens its page, sends a test
// event and sees the deliveries with the body sent and the answers; an
// endpoint the gateway disabled shows its banner; finance and viewer read
// the list and the deliveries, are offered no form, and their forged
// forms are refused 403 with nothing changed. Every page axe-clean at 360
// and 1280 px; the Developers page shows the catalogue.
func TestEndpointsInBrowserEveryRole(t *testing.T) {
	e := newEnv(t)
	failing := e.endpoint(e.shop.AppID)
	if _, err := e.endpoints.Disable(context.Background(), e.shop.AppID, failing.ID, "failing"); err != nil {
		t.Fatal(err)
	}
	b := browser.New(t)
	login := func(t *testing.T, role access.Role) *browser.Page {
		email := "ep-" + string(role) + "@shop.test"
		secret, _ := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: role}, e.now)
		pg := b.NewPage(browser.Wide)
		frametest.Login(t, pg, e.url, email, frametest.Password, frametest.Code(t, secret, e.now.Add(30*time.Second)))
		pg.Go(e.url + "/webhooks")
		if pg.LastStatus() != http.StatusOK {
			t.Fatalf("webhooks page: %d", pg.LastStatus())
		}
		return pg
	}
	t.Run("developer", func(t *testing.T) {
		pg := login(t, access.RoleDeveloper)
		if !has(pg, `[data-endpoint-disabled="`+failing.ID+`"]`) {
			t.Fatal("no banner for the endpoint the gateway disabled")
		}
		pg.Click("[data-endpoints] details summary")
		pg.Fill("#ep-url", "https://93.184.216.34/orders-hook")
		pg.Fill("#ep-desc", "stock release")
		pg.Click(`input[name="types"][value="order.expired"]`)
		pg.Submit("form[data-endpoint-add]")
		pg.WaitVisible("[data-new-secret]")
		if s := pg.Text("[data-secret]"); !strings.HasPrefix(s, "whsec_") {
			t.Fatalf("secret shown %q", s)
		}
		shoot(t, pg, "webhooks-endpoint-added")
		pg.Go(e.url + "/webhooks")
		if strings.Contains(pg.Text("main"), "whsec_") {
			t.Fatal("the secret is shown again")
		}
		shoot(t, pg, "webhooks-endpoints")
		eps, err := e.endpoints.List(context.Background(), e.shop.AppID)
		if err != nil || len(eps) != 2 {
			t.Fatalf("endpoints %v %v", eps, err)
		}
		added := eps[1]
		pg.Go(e.url + "/webhooks/endpoints/" + added.ID)
		pg.Submit("form[data-endpoint-test]")
		pg.WaitVisible(".flash")
		pg.WaitVisible(`[data-delivery="evt_test.` + added.ID + `"]`)
		pg.Click(`[data-detail="evt_dead.` + added.ID + `"] summary`)
		if got := pg.Text(`[data-detail="evt_dead.` + added.ID + `"]`); !strings.Contains(got, `"order.expired"`) || !strings.Contains(got, "busy") {
			t.Fatalf("the delivery's body and answer: %q", got)
		}
		shoot(t, pg, "webhooks-endpoint")
		pg.Go(e.url + "/webhooks/endpoints/" + failing.ID)
		shoot(t, pg, "webhooks-endpoint-failing")
		pg.Go(e.url + "/developers")
		if !has(pg, `[data-catalogue] [data-event-type="order.expired"]`) {
			t.Fatal("the Developers page has no catalogue")
		}
		shoot(t, pg, "developers-catalogue")
	})
	for _, role := range []access.Role{access.RoleFinance, access.RoleViewer} {
		t.Run(string(role), func(t *testing.T) {
			pg := login(t, role)
			if has(pg, "form[data-endpoint-add]") {
				t.Fatal("offered the add form")
			}
			pg.Go(e.url + "/webhooks/endpoints/" + failing.ID)
			if has(pg, "main form[method=post]") || !has(pg, `[data-delivery="evt_dead.`+failing.ID+`"]`) {
				t.Fatal("a form that posts, or no deliveries")
			}
			pg.SetWidth(browser.Narrow)
			pg.Look().CheckA11y(t, "webhooks-endpoint-"+string(role))
			pg.Look().Screenshot("console-webhooks-endpoint-" + string(role))
			path := e.url + "/webhooks/endpoints/" + failing.ID
			for _, f := range []struct {
				path   string
				fields map[string]string
			}{
				{e.url + "/webhooks/endpoints", map[string]string{"url": "https://93.184.216.36/x"}},
				{path, map[string]string{"url": "https://93.184.216.36/x", "enabled": "1"}},
				{path + "/rotate", map[string]string{}},
				{path + "/remove", map[string]string{}},
				{path + "/test", map[string]string{}},
				{path + "/resend", map[string]string{"delivery": "evt_dead." + failing.ID}},
				{path + "/replay", map[string]string{"since": e.now.Format(dateInput)}},
			} {
				pg.Go(path)
				before := e.fingerprint()
				if st := forge(t, pg, f.path, f.fields, true); st != http.StatusForbidden || e.fingerprint() != before {
					t.Fatalf("%s forging %s: %d", role, f.path, st)
				}
			}
			pg.AllowErrorStatus(http.StatusForbidden)
		})
	}
}
