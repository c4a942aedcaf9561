package account

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestPayoutsPageInBrowserEveryRole: the owner adds a destination with a
// fresh TOTP code (the login's code is refused as spent) and sees when it
// becomes usable, asks for a payout through its confirmation (a second
// send of the confirmation holds nothing more) and removes a destination;
// finance asks for payouts but is offered no destination form and its
// forged one is refused; developers and viewers read only. Every page
// axe-clean, the owner's at 360 and 1280 px.
func TestPayoutsPageInBrowserEveryRole(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.fund(e.shop.AppID, 200_00)
	treasury := e.usableDestination(e.shop.AppID)
	t.Cleanup(func() { journaltest.Check(t, e.rdb) })
	b := browser.New(t)
	login := func(t *testing.T, role access.Role) (*browser.Page, string, string) {
		email := "po-" + string(role) + "@shop.test"
		secret, acct := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: role}, e.now)
		pg := b.NewPage(browser.Wide)
		frametest.Login(t, pg, e.url, email, frametest.Password, frametest.Code(t, secret, e.now.Add(30*time.Second)))
		pg.Go(e.url + "/payouts")
		if pg.LastStatus() != http.StatusOK {
			t.Fatalf("payouts page: %d", pg.LastStatus())
		}
		return pg, secret, acct.ID
	}
	t.Run("owner", func(t *testing.T) {
		pg, secret, id := login(t, access.RoleOwner)
		shoot(t, pg, "payouts-empty")
		addForm := func(code string) {
			pg.Go(e.url + "/payouts")
			pg.Eval(`document.querySelector("#d-kind").value = "usdt_bep20"`, nil)
			pg.Fill("#d-label", "Cold wallet")
			pg.Fill("#d-address", "0x52908400098527886E0F7030069857D2E4169EE7")
			pg.Fill("#d-code", code)
			pg.Submit("form[data-add-destination]")
		}
		// The code the login spent confirms nothing more.
		addForm(frametest.Code(t, secret, e.now.Add(30*time.Second)))
		pg.AllowErrorStatus(http.StatusBadRequest)
		if !strings.Contains(pg.Text("main"), "used already") {
			t.Fatalf("a spent code: %q", pg.Text("main"))
		}
		// A fresh code of the next window (the test's clock cannot wait
		// for it, so the spent step is wound back once).
		e.rdb.HSet(ctx, schema.AccessPrefix+"user:"+id, "totpStep", "0")
		addForm(frametest.Code(t, secret, time.Now()))
		pg.WaitVisible("[data-cooling]")
		if got := pg.Text("[data-destinations]"); !strings.Contains(got, "Cold wallet") || !strings.Contains(got, "cooling-off") {
			t.Fatalf("destinations: %q", got)
		}
		if got := pg.Text("#p-dest"); !strings.Contains(got, "Cold wallet — BEP20 0x52908400098527886E0F7030069857D2E4169EE7 (cooling-off)") {
			t.Fatalf("the payout form does not mark the new destination as cooling off: %q", got)
		}
		pg.Fill("#p-amount", "20.00")
		pg.Eval(`document.querySelector("#p-dest").value = "`+treasury+`"`, nil)
		pg.Submit("form[data-ask-payout]")
		pg.WaitVisible("[data-payout-confirm]")
		if got := pg.Text("[data-payout-total]"); !strings.Contains(got, "21.00 USD") {
			t.Fatalf("confirmation total %q, want 21.00 USD (amount and fee)", got)
		}
		if e.heldUSD(e.shop.AppID) != 0 {
			t.Fatal("the preview held money")
		}
		shoot(t, pg, "payouts-confirm")
		var fields map[string]string
		pg.Eval(`Object.fromEntries(new FormData(document.querySelector("form[data-payout-confirm-form]")))`, &fields)
		pg.Submit("form[data-payout-confirm-form]")
		pg.WaitVisible(`[data-payouts] [data-state="requested"]`)
		// The same confirmation again (a double click, a reload): one payout.
		if st := forge(t, pg, e.url+"/payouts/ask", fields, true); st != http.StatusOK && st != http.StatusSeeOther {
			t.Fatalf("second confirmation: %d", st)
		}
		if held := e.heldUSD(e.shop.AppID); held != 21_00 {
			t.Fatalf("held %s after a confirmation sent twice, want 21.00", held)
		}
		pg.Go(e.url + "/payouts")
		shoot(t, pg, "payouts")
		pg.Submit(`[data-destination="` + treasury + `"] form[data-remove-destination]`)
		pg.WaitVisible(".flash")
		if has(pg, `[data-destination="`+treasury+`"]`) {
			t.Fatal("the removed destination is still listed")
		}
	})
	t.Run("finance", func(t *testing.T) {
		pg, _, _ := login(t, access.RoleFinance)
		if has(pg, "form[data-add-destination]") || has(pg, "form[data-remove-destination]") || !has(pg, "form[data-ask-payout]") {
			t.Fatal("finance is offered the destination forms, or not the payout form")
		}
		pg.SetWidth(browser.Narrow)
		pg.Look().CheckA11y(t, "payouts-finance")
		pg.Look().Screenshot("console-payouts-finance")
		before := e.fingerprint()
		if st := forge(t, pg, e.url+"/payouts/destinations", map[string]string{"kind": "bank", "holder": "X", "bank": "Y", "account": "1", "code": "123456"}, true); st != http.StatusForbidden || e.fingerprint() != before {
			t.Fatalf("finance adding a destination: %d", st)
		}
		pg.AllowErrorStatus(http.StatusForbidden)
		pg.Go(e.url + "/payouts")
		// Merchant B's destination, by its id: as if there were none.
		theirs := e.usableDestination(e.other.AppID)
		before = e.fingerprint()
		st := forge(t, pg, e.url+"/payouts/ask", map[string]string{"destination": theirs, "amount": "10.00", "currency": "USD", "confirm": "1", "key": "k1"}, true)
		if st != http.StatusNotFound || e.fingerprint() != before {
			t.Fatalf("finance paying to another merchant's destination: %d (changed: %v)", st, e.fingerprint() != before)
		}
		pg.AllowErrorStatus(http.StatusNotFound)
	})
	for _, role := range []access.Role{access.RoleDeveloper, access.RoleViewer} {
		t.Run(string(role), func(t *testing.T) {
			pg, _, _ := login(t, role)
			if has(pg, "main form[method=post]") {
				t.Fatal("a form that posts")
			}
			if !strings.Contains(pg.Text("[data-payouts]"), "20.00 USD") {
				t.Fatalf("payouts list %q", pg.Text("[data-payouts]"))
			}
			pg.SetWidth(browser.Narrow)
			pg.Look().CheckA11y(t, "payouts-"+string(role))
			pg.Look().Screenshot("console-payouts-" + string(role))
		})
	}
}
