package admin

import (
	"context"
	"testing"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/schema"
)

// TestBrowserFees: the admin lists the schedules, sets a default and a
// merchant's override through the form, is shown a refusal for an
// over-precise amount, and clears the override (screenshots at 360 and
// 1280 px, axe clean); support and the auditor read the page without a
// set or clear form, and their forged set and clear (with their own CSRF
// token) are refused with 403, the schedules and the audit log unchanged.
func TestBrowserFees(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	ctx := context.Background()
	fee := func(appid string, m schema.Method, cur string) string {
		return e.rdb.HGet(ctx, schema.FeesKey, schema.FeeField(appid, m, cur)).Val()
	}
	for _, who := range []struct{ email, name string }{{"sam@ops.test", "support"}, {"al@ops.test", "auditor"}} {
		t.Run(who.name+" reads, may not change", func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, who.email)
			pg.Go(base + "/fees")
			if st := pg.LastStatus(); st != 200 {
				t.Fatalf("fees page: %d", st)
			}
			pg.WaitVisible(`[data-fee="*:wallet_a:CNY"]`)
			var offered bool
			pg.Eval(`document.querySelector("[data-fee-set], [data-fee-clear]") !== null`, &offered)
			if offered {
				t.Fatal("a set or clear form is offered")
			}
			shoot(t, pg, "admin-fees-"+who.name)
			before := e.state(t)
			forge(t, pg, base+"/fees", map[string]string{"method": "wallet_a", "currency": "USD", "bps": "150"}, true)
			pg.AllowErrorStatus(403)
			pg.Go(base + "/fees")
			forge(t, pg, base+"/fees/clear", map[string]string{"method": "wallet_a", "currency": "CNY"}, true)
			pg.AllowErrorStatus(403)
			if e.state(t) != before || fee("", schema.MethodWalletA, "CNY") != "100:0:0:0" {
				t.Fatal("a refused fee change changed Redis")
			}
		})
	}
	t.Run("admin sets and clears", func(t *testing.T) {
		pg := b.NewPage(browser.Narrow)
		e.browserLogin(t, pg, base, "ann@ops.test")
		set := func(appid, method, cur, bps, fixed, min, max string) {
			t.Helper()
			pg.Go(base + "/fees")
			pg.Fill("#fee-merchant", appid)
			pg.Fill("#fee-method", method)
			pg.Fill("#fee-currency", cur)
			pg.Fill("#fee-bps", bps)
			pg.Fill("#fee-fixed", fixed)
			pg.Fill("#fee-min", min)
			pg.Fill("#fee-max", max)
			pg.Submit("form[data-fee-set]")
		}
		set("", "wallet_a", "USD", "290", "0.30", "0", "0")
		pg.WaitVisible(".flash")
		set(e.appid, "wallet_a", "USD", "100", "0", "0.50", "20")
		pg.WaitVisible(".flash")
		if d, o := fee("", schema.MethodWalletA, "USD"), fee(e.appid, schema.MethodWalletA, "USD"); d != "290:30:0:0" || o != "100:0:50:2000" {
			t.Fatalf("after the sets: default %q, override %q", d, o)
		}
		pg.WaitVisible(`[data-fee="` + e.appid + `:wallet_a:USD"]`)
		shoot(t, pg, "admin-fees")
		set("", "wallet_b", "CNY", "100", "0.001", "0", "0")
		pg.AllowErrorStatus(400)
		pg.WaitVisible("[data-error]")
		shoot(t, pg, "admin-fees-refused")
		if v := fee("", schema.MethodWalletB, "CNY"); v != "" {
			t.Fatalf("an over-precise fixed amount was set: %q", v)
		}
		pg.Go(base + "/fees")
		pg.Submit(`[data-fee="` + e.appid + `:wallet_a:USD"] form[data-fee-clear]`)
		pg.WaitVisible(".flash")
		if v := fee(e.appid, schema.MethodWalletA, "USD"); v != "" {
			t.Fatalf("the override is still %q", v)
		}
	})
}
