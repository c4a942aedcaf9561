package console

import (
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/web/frame/frametest"
)

// listShape is how the orders table lies on the page.
type listShape struct {
	Rows, Tallest, Total int
	Broken               []string // ids drawn on more than one line
	Untitled             int      // ids whose link does not carry the whole id
}

const shapeJS = `(() => {
	const rows = Array.from(document.querySelectorAll("table[data-orders] tbody tr[data-id]"));
	const out = {Rows: rows.length, Tallest: 0, Total: 0, Broken: [], Untitled: 0};
	for (const r of rows) {
		const h = Math.round(r.getBoundingClientRect().height);
		out.Tallest = Math.max(out.Tallest, h); out.Total += h;
		const code = r.querySelector("td.c-id code"), a = r.querySelector("td.c-id a");
		const lh = parseFloat(getComputedStyle(code).lineHeight) || 20;
		if (code.getClientRects().length !== 1 || code.getBoundingClientRect().height > lh * 1.5) out.Broken.push(code.textContent);
		if (!a || a.title !== r.dataset.id) out.Untitled++;
	}
	return out })()`

// TestOrdersListCompactAtNarrow: at 360 px each order is a compact row
// (id and amount, when and status) instead of a six-line card; at both
// widths an id is never broken across lines and its link carries it whole.
func TestOrdersListCompactAtNarrow(t *testing.T) {
	e := newEnv(t)
	for _, r := range []access.Role{access.RoleOwner, access.RoleViewer} {
		e.fresh(r) // more orders: seven or more in the list
	}
	b := browser.New(t)
	pg := b.NewPage(browser.Narrow)
	frametest.Login(t, pg, e.base, e.users[access.RoleOwner], frametest.Password, e.code(t, e.users[access.RoleOwner]))
	pg.Go(e.base + "/orders")
	for _, tc := range []struct {
		name    string
		width   int
		tallest int // px
	}{{"360 px", browser.Narrow, 72}, {"1280 px", browser.Wide, 48}} {
		t.Run(tc.name, func(t *testing.T) {
			pg.SetWidth(tc.width)
			var s listShape
			pg.Eval(shapeJS, &s)
			if s.Rows < 7 {
				t.Fatalf("%d orders listed, want at least 7", s.Rows)
			}
			if s.Tallest > tc.tallest {
				t.Errorf("an order takes %d px (all %d take %d px), want at most %d each", s.Tallest, s.Rows, s.Total, tc.tallest)
			}
			if len(s.Broken) > 0 || s.Untitled > 0 {
				t.Errorf("ids broken across lines %v, links without the whole id %d", s.Broken, s.Untitled)
			}
			pg.Look().CheckNoOverflow(t, "body")
			pg.Look().CheckA11y(t, "orders "+tc.name)
			pg.Look().Screenshot("console-orders-compact")
		})
	}
}
