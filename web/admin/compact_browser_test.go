package admin

import (
	"testing"

	"github.com/paygate/gateway/internal/browser"
)

// checkCompactOrders: at 360 px each order of a list is a compact row (id
// and amount, when and status), and at both widths no id is broken across
// lines and each id's link carries it whole.
func checkCompactOrders(t *testing.T, pg *browser.Page) {
	t.Helper()
	for _, w := range []struct {
		px, tallest int
	}{{browser.Narrow, 72}, {browser.Wide, 48}} {
		pg.SetWidth(w.px)
		var s struct {
			Rows, Tallest, Untitled int
			Broken                  []string
		}
		pg.Eval(`(() => {
			const rows = Array.from(document.querySelectorAll("table[data-orders] tbody tr[data-id]"));
			const out = {Rows: rows.length, Tallest: 0, Untitled: 0, Broken: []};
			for (const r of rows) {
				out.Tallest = Math.max(out.Tallest, Math.round(r.getBoundingClientRect().height));
				const code = r.querySelector("td.c-id code"), a = r.querySelector("td.c-id a");
				const lh = parseFloat(getComputedStyle(code).lineHeight) || 20;
				if (code.getClientRects().length !== 1 || code.getBoundingClientRect().height > lh * 1.5) out.Broken.push(code.textContent);
				if (!a || a.title !== r.dataset.id) out.Untitled++;
			}
			return out })()`, &s)
		if s.Rows == 0 {
			t.Fatal("no orders listed")
		}
		if s.Tallest > w.tallest || len(s.Broken) > 0 || s.Untitled > 0 {
			t.Errorf("at %d px: tallest order %d px (want ≤ %d), ids broken %v, links without the whole id %d", w.px, s.Tallest, w.tallest, s.Broken, s.Untitled)
		}
	}
}
