package admin

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/operator"
)

// epayTypes is the page's use case over the test's Redis, with the
// default a deployment would configure (GATEWAY_EPAY_TYPES).
func epayTypes(t *testing.T, rdb redis.UniversalClient, logs operator.Auditor) *operator.EpayTypes {
	t.Helper()
	def, err := epay.ParseTypes("t1=wallet_a,t2=wallet_b")
	if err != nil {
		t.Fatal(err)
	}
	return operator.NewEpayTypes(epay.NewTypeStore(rdb, def), logs)
}

// TestBrowserEpayTypes: support and the auditor read the words in force
// (the default) without a form, and their forged set and reset (with
// their own CSRF token) are refused with 403, Redis unchanged; the admin
// sets a mapping through the form (kept in Redis, an audit entry), is
// shown a refusal for an unknown method (nothing kept), and resets to the
// default (another entry). Screenshots at 360 and 1280 px, axe clean.
func TestBrowserEpayTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	ctx := context.Background()
	stored := func() string { return e.rdb.Get(ctx, epay.TypesKey).Val() }
	for _, who := range []struct{ email, name string }{{"sam@ops.test", "support"}, {"al@ops.test", "auditor"}} {
		t.Run(who.name+" reads, may not change", func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, who.email)
			pg.Go(base + "/epay-types")
			if st := pg.LastStatus(); st != 200 {
				t.Fatalf("epay types page: %d", st)
			}
			pg.WaitVisible(`[data-epay-type="t2"]`)
			var offered bool
			pg.Eval(`document.querySelector("[data-epay-types-set], [data-epay-types-reset]") !== null`, &offered)
			if offered {
				t.Fatal("a set or reset form is offered")
			}
			shoot(t, pg, "admin-epay-types-"+who.name)
			before := e.state(t)
			forge(t, pg, base+"/epay-types", map[string]string{"mapping": "t1=wallet_b"}, true)
			pg.AllowErrorStatus(403)
			pg.Go(base + "/epay-types")
			forge(t, pg, base+"/epay-types/reset", map[string]string{}, true)
			pg.AllowErrorStatus(403)
			if e.state(t) != before || stored() != "" {
				t.Fatal("a refused change changed Redis")
			}
		})
	}
	t.Run("admin sets and resets", func(t *testing.T) {
		pg := b.NewPage(browser.Narrow)
		e.browserLogin(t, pg, base, "ann@ops.test")
		entries := func(action string) int { return fixture.AuditActions(t, e.rdb)[action] }
		set := func(mapping string) {
			t.Helper()
			pg.Go(base + "/epay-types")
			pg.Fill("#epay-mapping", mapping)
			pg.Submit("form[data-epay-types-set]")
		}
		set("t1=wallet_b, t9=usdt_direct")
		pg.WaitVisible(".flash")
		pg.WaitVisible(`[data-epay-type="t9"]`)
		if got := stored(); got != "t1=wallet_b,t9=usdt_direct" || entries("epay_types.set") != 1 {
			t.Fatalf("after the set: %q kept, %d entries", got, entries("epay_types.set"))
		}
		shoot(t, pg, "admin-epay-types")
		set("t1=nope")
		pg.AllowErrorStatus(400)
		pg.WaitVisible("[data-error]")
		shoot(t, pg, "admin-epay-types-refused")
		if got := stored(); got != "t1=wallet_b,t9=usdt_direct" || entries("epay_types.set") != 1 {
			t.Fatalf("a refused mapping changed Redis: %q, %d entries", got, entries("epay_types.set"))
		}
		pg.Go(base + "/epay-types")
		pg.Submit("form[data-epay-types-reset]")
		pg.WaitVisible(".flash")
		if got := stored(); got != "" || entries("epay_types.reset") != 1 {
			t.Fatalf("after the reset: %q kept, %d entries", got, entries("epay_types.reset"))
		}
	})
}
