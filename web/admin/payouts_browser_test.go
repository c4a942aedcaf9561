package admin

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
)

// payoutsFixture is three requested payouts of the env's merchant: two to
// its bank account, one to a TRC20 address.
func payoutsFixture(t *testing.T, e *env) (bank1, bank2, usdt payout.Payout) {
	t.Helper()
	ctx := context.Background()
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.TopUp(ctx, "", e.appid, "USD", 500000, nil); err != nil {
		t.Fatal(err)
	}
	who := audit.Entry{At: time.Now(), ActorID: "u1", Realm: audit.RealmMerchant, Role: "owner", Action: "payout.request", Source: "127.0.0.1"}
	ask := func(d payout.Destination, amount schema.Amount) payout.Payout {
		d.AppID = e.appid
		got, err := e.payouts.AddDestination(ctx, d, "merchant:u1", who)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := e.payouts.Request(ctx, payout.Ask{AppID: e.appid, Destination: got.ID, Currency: "USD", Amount: amount, By: "user:u1",
			Limits: payout.Limits{Fee: 150}}, who)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := payout.Destination{Kind: payout.Bank, Holder: "Tea Shop SL", Bank: "Banco Uno", Account: "ES9121000418450200051332"}
	return ask(b, 120000), ask(b, 30000), ask(payout.Destination{Kind: payout.TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"}, 45000)
}

// TestBrowserPayouts: support and the auditor read the payouts' queues,
// find no form, and a forged approval is refused (403) with nothing
// changed; the admin who changed the merchant's payout details is refused
// approval with the reason shown; then the admin approves, rejects with a
// reason, records a bank reference by hand and another from a CSV file with
// a BOM and CRLF. Every page axe-clean, screenshots at 360 and 1280 px.
func TestBrowserPayouts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	ctx := context.Background()
	t.Cleanup(func() { journaltest.Check(t, e.rdb) })
	bank1, bank2, usdt := payoutsFixture(t, e)
	for _, who := range []struct{ email, name string }{{"sam@ops.test", "support"}, {"al@ops.test", "auditor"}} {
		t.Run(who.name+" reads only", func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, who.email)
			pg.Go(base + "/payouts")
			if st := pg.LastStatus(); st != 200 {
				t.Fatalf("/payouts: %d", st)
			}
			var rows int
			var offered bool
			pg.Eval(`document.querySelectorAll("[data-payouts-review] [data-payout]").length`, &rows)
			pg.Eval(`document.querySelector("[data-approve], [data-reject], [data-paid], [data-refs]") !== null`, &offered)
			if rows != 3 || offered {
				t.Fatalf("%d payouts in review, forms offered %v", rows, offered)
			}
			shoot(t, pg, "admin-payouts-"+who.name)
			before := e.state(t)
			forge(t, pg, base+"/payouts/"+bank1.ID+"/approve", map[string]string{}, false)
			pg.AllowErrorStatus(403)
			if e.state(t) != before {
				t.Fatal("a forged approval changed Redis")
			}
		})
	}
	t.Run("admin", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "ann@ops.test")
		ann := e.session(t, access.RealmOperator, "ann@ops.test")
		if err := e.payouts.NoteChange(ctx, e.appid, operator.ChangerKey(access.ActorOf(ann, ""))); err != nil {
			t.Fatal(err)
		}
		pg.Go(base + "/payouts")
		shoot(t, pg, "admin-payouts")
		pg.Submit(`[data-payout="` + bank1.ID + `"] form[data-approve]`)
		pg.WaitVisible("[data-error]")
		pg.AllowErrorStatus(403)
		if txt := pg.Text("main"); !strings.Contains(txt, "another operator must decide") {
			t.Fatalf("the maker-checker refusal says %q", txt)
		}
		shoot(t, pg, "admin-payouts-maker-checker")
		if err := e.rdb.Del(ctx, schema.PayoutChangesKey(e.appid)).Err(); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{bank1.ID, bank2.ID} {
			pg.Go(base + "/payouts")
			pg.Submit(`[data-payouts-review] [data-payout="` + id + `"] form[data-approve]`)
			pg.WaitVisible(".flash")
		}
		pg.Fill(`#reason-`+usdt.ID, "the address belongs to an exchange that refuses deposits from us")
		pg.Submit(`[data-payout="` + usdt.ID + `"] form[data-reject]`)
		pg.WaitVisible(".flash")
		pg.Fill(`#ref-`+bank1.ID, "SEPA-2026-11-28-001")
		pg.Submit(`[data-payouts-sending] [data-payout="` + bank1.ID + `"] form[data-paid]`)
		pg.WaitVisible(".flash")
		csv := "\ufeffpayout_id,reference\r\n" + bank2.ID + ",SEPA-2026-11-28-002\r\n" + bank1.ID + ",SEPA-2026-11-28-001\r\n"
		pg.Eval(`(() => { const dt = new DataTransfer(); dt.items.add(new File([`+jsString(csv)+`], "refs.csv", {type: "text/csv"}));
document.querySelector("#refs-file").files = dt.files; return true; })()`, new(bool))
		pg.Submit("form[data-refs]")
		pg.WaitVisible("[data-refs-report]")
		var outcomes string
		pg.Eval(`Array.from(document.querySelectorAll("[data-ref-row]")).map(r => r.dataset.refRow + ":" + r.cells[3].textContent).join("|")`, &outcomes)
		if outcomes != "2:Paid|3:Already recorded" {
			t.Fatalf("the references file's rows: %q", outcomes)
		}
		shoot(t, pg, "admin-payouts-references")
		for id, want := range map[string]payout.State{bank1.ID: payout.Paid, bank2.ID: payout.Paid, usdt.ID: payout.Rejected} {
			if p, err := e.payouts.Get(ctx, "", id); err != nil || p.State != want {
				t.Fatalf("payout %s: %s (%v), want %s", id, p.State, err, want)
			}
		}
		pg.Go(base + "/payouts?appid=" + e.appid)
		shoot(t, pg, "admin-payouts-recent")
	})
}
