package admin

import (
	"testing"

	"github.com/paygate/gateway/internal/browser"
)

// TestBrowserMerchantConsoleView: an auditor opens a merchant's console
// from the merchant page and reads its overview, orders and an order
// (axe clean, nothing overflowing, screenshots at 360 and 1280 px); no
// page of the view offers a form, a refund forged through the view is
// refused with 403 and changes nothing, and each page opened is one audit
// entry.
func TestBrowserMerchantConsoleView(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)
	e.browserLogin(t, pg, base, "al@ops.test")
	pg.Go(base + "/merchants/" + e.appid)
	pg.Click("[data-view-console]")
	pg.WaitVisible("[data-view-banner]")
	shoot(t, pg, "admin-view-overview")
	pg.Click(`nav a[href$="/view/orders"]`)
	pg.WaitVisible("[data-orders]")
	checkCompactOrders(t, pg)
	shoot(t, pg, "admin-view-orders")
	pg.Go(base + "/merchants/" + e.appid + "/view/orders/" + e.mismatch)
	pg.WaitVisible("[data-timeline]")
	shoot(t, pg, "admin-view-order")
	var forms int
	pg.Eval(`document.querySelectorAll('main form[method="post"]').length`, &forms)
	if forms != 0 {
		t.Fatalf("the view offers %d forms", forms)
	}
	if n := len(e.views(t, "al@ops.test")); n != 3 {
		t.Fatalf("%d view entries, want 3", n)
	}
	before := e.state(t)
	forge(t, pg, base+"/merchants/"+e.appid+"/view/orders/"+e.mismatch+"/refund", map[string]string{"reason": "x"}, true)
	pg.AllowErrorStatus(403)
	if st := pg.LastStatus(); st != 403 {
		t.Fatalf("a refund forged through the view: %d, want 403", st)
	}
	if e.state(t) != before {
		t.Fatal("a write through the view changed Redis")
	}
	pg.AssertNoConsoleErrors(t)
}
