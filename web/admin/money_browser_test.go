package admin

import (
	"context"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/journal/journaltest"
)

// TestBrowserMoney: support and the auditor read a merchant's terms,
// journal and the adjustments, find no form to change them, and a forged
// adjustment, terms change or approval is refused (403) with nothing
// changed; the admin sets the terms, posts a small adjustment, requests a
// large one (which offers them no approve button, and whose forged
// approval is refused) and approves the CLI's request, which posts once.
// Every page axe-clean, screenshots at 360 and 1280 px.
func TestBrowserMoney(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	ctx := context.Background()
	t.Cleanup(func() { journaltest.Check(t, e.rdb) })
	for _, who := range []struct{ email, name string }{{"sam@ops.test", "support"}, {"al@ops.test", "auditor"}} {
		t.Run(who.name+" reads only", func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, who.email)
			for _, p := range []struct{ path, shot string }{
				{"/merchants/" + e.appid, "admin-merchant-money-" + who.name},
				{"/merchants/" + e.appid + "/journal", "admin-journal-" + who.name},
				{"/adjustments", "admin-adjustments-" + who.name},
			} {
				pg.Go(base + p.path)
				if st := pg.LastStatus(); st != 200 {
					t.Fatalf("%s: %d", p.path, st)
				}
				var offered bool
				pg.Eval(`document.querySelector("[data-terms-form], [data-payout-terms-form], [data-adjust], [data-approve], [data-reject]") !== null`, &offered)
				if offered {
					t.Fatalf("%s offers a form", p.path)
				}
				shoot(t, pg, p.shot)
			}
			for _, f := range []struct {
				path   string
				fields map[string]string
			}{
				{"/merchants/" + e.appid + "/adjust", map[string]string{"amount": "10.00", "currency": "USD", "reason": "x"}},
				{"/merchants/" + e.appid + "/terms", map[string]string{"settle": "instant"}},
				{"/merchants/" + e.appid + "/payout-terms", map[string]string{"currency": "USD", "fee": "1.00"}},
				{"/adjustments/" + e.request + "/approve", map[string]string{}},
			} {
				before := e.state(t)
				pg.Go(base + "/adjustments")
				forge(t, pg, base+f.path, f.fields, true)
				pg.AllowErrorStatus(403)
				if e.state(t) != before {
					t.Fatalf("%s: refused, yet Redis changed", f.path)
				}
			}
		})
	}
	t.Run("admin", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "ann@ops.test")
		pg.Go(base + "/merchants/" + e.appid)
		shoot(t, pg, "admin-merchant-money")
		pg.Fill("#pt-min", "10.00")
		pg.Fill("#pt-fee", "1.50")
		pg.Submit("form[data-payout-terms-form]")
		pg.WaitVisible("[data-payout-terms-row=USD]")
		shoot(t, pg, "admin-merchant-payout-terms")
		pg.Click(`input[name="settle"][value="instant"]`)
		pg.Fill("#reserve_bps", "500")
		pg.Fill("#reserve_days", "30")
		pg.Submit("form[data-terms-form]")
		pg.WaitVisible(".flash")
		// The settlement form keeps the payout terms the other form set.
		if a, err := e.money.Terms(ctx, access.CLI(), e.appid); err != nil || !a.Instant || a.ReserveBps != 500 ||
			a.PayoutsFor("USD").Min != 1000 || a.PayoutsFor("USD").Fee != 150 {
			t.Fatalf("terms after the form: %+v, %v", a, err)
		}
		pg.Fill("#adj-amount", "25.00")
		pg.Fill("#adj-reason", "goodwill for a late settlement")
		pg.Submit("form[data-adjust]")
		pg.WaitVisible(".flash")
		pg.Fill("#adj-amount", "-1500")
		pg.Fill("#adj-reason", "chargeback from the acquirer")
		pg.Submit("form[data-adjust]")
		pg.WaitVisible("[data-pending]")
		var own, approvable int
		pg.Eval(`document.querySelectorAll("[data-pending] [data-own]").length`, &own)
		pg.Eval(`document.querySelectorAll("[data-pending] [data-approve]").length`, &approvable)
		if own != 1 || approvable != 1 {
			t.Fatalf("%d own requests, %d approve buttons; want 1 and 1 (the CLI's)", own, approvable)
		}
		shoot(t, pg, "admin-adjustments")
		pending, _, err := e.money.Adjustments(ctx, access.CLI(), e.appid, 10)
		if err != nil || len(pending) != 2 {
			t.Fatalf("pending %+v, %v", pending, err)
		}
		for _, p := range pending {
			if p.ID == e.request {
				continue
			}
			before := e.state(t)
			forge(t, pg, base+"/adjustments/"+p.ID+"/approve", map[string]string{}, true)
			pg.AllowErrorStatus(403)
			if e.state(t) != before {
				t.Fatal("the maker's forged approval changed Redis")
			}
		}
		pg.Go(base + "/adjustments")
		pg.Submit(`[data-request="` + e.request + `"] form[data-approve]`)
		pg.WaitVisible(".flash")
		bal, err := e.money.Journal(ctx, access.CLI(), e.appid, "", 10)
		if err != nil || len(bal.Balances) != 1 || bal.Balances[0].Available != 202500 || len(bal.Entries) != 2 {
			t.Fatalf("after: %+v, %v", bal, err)
		}
		shoot(t, pg, "admin-adjustments-approved")
		pg.Go(base + "/merchants/" + e.appid + "/journal")
		shoot(t, pg, "admin-journal")
	})
}
