package admin

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
)

// TestBrowserFeeIncome: admin, support and the auditor read the fee income
// by day, method and currency, with nothing to submit but the dates, and
// the page is accessible; the admin's is clean at 360 and 1280 px. A
// merchant's session never reaches it.
func TestBrowserFeeIncome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	day := e.clock.now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -2)
	mix := fixture.PostLedgerMix(t, j, e.appid, day)
	fixture.ProjectJournal(t, e.rdb, e.ch)
	fixture.InsertOrders(t, e.ch, mix.Orders)
	journaltest.Check(t, e.rdb)
	base := e.serve(t)
	b := browser.New(t)
	for _, email := range []string{"ann@ops.test", "sam@ops.test", "al@ops.test"} {
		t.Run(email, func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, email)
			pg.Go(base + "/income")
			if pg.LastStatus() != http.StatusOK || has(pg, "main form[method=post]") {
				t.Fatalf("%d; a form that posts: %v", pg.LastStatus(), has(pg, "main form[method=post]"))
			}
			text := pg.Text("table[data-income]")
			for _, want := range []string{day.Format(time.DateOnly), "wallet_a", "wallet_b", "3.20", "1.75", "0.07", "-0.80"} {
				if !strings.Contains(text, want) {
					t.Fatalf("fee income lacks %q: %q", want, text)
				}
			}
			if got := pg.Text("[data-income-totals]"); !strings.Contains(got, "4.15 USD") || !strings.Contains(got, "0.07 EUR") {
				t.Fatalf("totals %q", got)
			}
			if email == "ann@ops.test" {
				shoot(t, pg, "admin-income")
			} else {
				pg.SetWidth(browser.Narrow)
				pg.Look().CheckA11y(t, "admin-income-"+email)
			}
			pg.AssertNoConsoleErrors(t)
		})
	}
	owner := e.session(t, access.RealmMerchant, "owner@shop.test")
	if res := e.do(t, get(Prefix+"/income", owner)); res.StatusCode == http.StatusOK {
		t.Fatal("a merchant's session reads the fee income")
	}
}

// has reports whether the page holds an element matching sel.
func has(pg *browser.Page, sel string) bool {
	var ok bool
	pg.Eval(`!!document.querySelector(`+jsString(sel)+`)`, &ok)
	return ok
}
