package admin

import (
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/browser"
)

// TestBrowserRecordRefund: support finds no "record refund" form on a
// mismatch and a forged one is refused with 403, nothing changed; the
// administrator records the refund made at the provider through the form
// (axe clean, screenshots) and the exception leaves the queue.
func TestBrowserRecordRefund(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	row := `[data-exception="mismatch:` + e.mismatch + `"]`
	t.Run("support refused", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "sam@ops.test")
		pg.Go(base + "/exceptions")
		var offered bool
		pg.Eval(`document.querySelector('`+row+` form[data-record-refund]') !== null`, &offered)
		if offered {
			t.Fatal("support is offered the record-refund form")
		}
		before := e.state(t)
		forge(t, pg, base+"/exceptions/"+e.mismatch+"/refund", map[string]string{"amount": "200.00", "currency": "CNY", "note": "RF-1", "confirm": "1"}, true)
		pg.AllowErrorStatus(403)
		if e.state(t) != before {
			t.Fatal("a refused record changed Redis")
		}
	})
	t.Run("admin records", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "ann@ops.test")
		pg.Go(base + "/exceptions")
		shoot(t, pg, "admin-exceptions-refund")
		pg.SetWidth(browser.Wide)
		pg.Fill(row+` input[name="amount"]`, "200.00")
		pg.Fill(row+` input[name="currency"]`, "CNY")
		pg.Fill(row+` form[data-record-refund] input[name="note"]`, "wallet_a dashboard refund RF-778")
		pg.Submit(row + ` form[data-record-refund]`)
		pg.WaitVisible("[data-confirm-record-refund]")
		if txt := pg.Text("[data-exception-refund]"); !strings.Contains(txt, "200.00 CNY") || !strings.Contains(txt, "cannot be undone") {
			t.Fatalf("the confirmation says %q", txt)
		}
		shoot(t, pg, "admin-exceptions-refund-confirm")
		pg.Submit(`form[data-confirm-record-refund]`)
		pg.WaitVisible(".flash")
		var still bool
		pg.Eval(`document.querySelector('`+row+`') !== null`, &still)
		if still {
			t.Fatal("the refunded mismatch is still listed")
		}
		pg.AssertNoConsoleErrors(t)
	})
}
