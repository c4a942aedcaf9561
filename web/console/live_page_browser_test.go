package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestLivePageInBrowser: the navigation leads to the live orders page, a
// page of its own (the stream at /orders/live stays the stream); under
// the strict CSP its script reads the stream and puts a new order on top
// of the latest ones and a paid one's new status in place, for the
// merchant's orders only.
func TestLivePageInBrowser(t *testing.T) {
	e := newEnv(t)
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)
	frametest.Login(t, pg, e.base, e.users[access.RoleViewer], frametest.Password, e.code(t, e.users[access.RoleViewer]))
	pg.Go(e.base + "/orders")
	pg.Click(`nav.nav a[href="/console/live"]`)
	pg.WaitVisible("table[data-live-page]")
	if pg.LastStatus() != http.StatusOK || !strings.HasSuffix(pg.URL(), "/console/live") {
		t.Fatalf("live page: %d at %s", pg.LastStatus(), pg.URL())
	}
	if !has(pg, liveRow(e.orders["open"])) {
		t.Error("the latest orders are not listed before any event")
	}
	e.listening(t, 1)
	pg.WaitText("[data-live-status]", "Live:")

	open := e.store.get(e.orders["open"])
	emit(t, e.rdb, paid(&open), schema.EventPaid)
	theirs := liveOrder(e.other, 7)
	emit(t, e.rdb, theirs, schema.EventCreated)
	fresh := liveOrder(e.shop, 7) // after theirs in its stream: once fresh is shown, theirs was read
	emit(t, e.rdb, fresh, schema.EventCreated)

	pg.WaitVisible(liveRow(fresh.ID))
	var top string
	pg.Eval(`document.querySelector("table[data-orders] tbody tr").dataset.id`, &top)
	if top != fresh.ID {
		t.Errorf("top row %s, want the new order %s", top, fresh.ID)
	}
	if !pg.WaitTrue(`document.querySelector('` + liveRow(open.ID) + ` [data-status] .badge').classList.contains("paid")`) {
		t.Errorf("the paid order's row was not updated in place: %q", pg.Text(liveRow(open.ID)))
	}
	if has(pg, liveRow(theirs.ID)) {
		t.Errorf("another merchant's order %s is on the page", theirs.ID)
	}
	for _, w := range []int{browser.Narrow, browser.Wide} {
		pg.SetWidth(w)
		pg.Look().CheckNoOverflow(t, "body")
		pg.Look().CheckA11y(t, "live")
		pg.Look().Screenshot("console-live")
	}
	pg.AssertNoConsoleErrors(t) // a script the CSP refused would be an error here
}
