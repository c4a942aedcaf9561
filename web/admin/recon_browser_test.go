package admin

import (
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/provider/statement"
)

// chooseFile puts content in the file input sel, as choosing a file does.
func chooseFile(pg *browser.Page, sel, name string, content []byte) {
	pg.Eval(`(() => { const dt = new DataTransfer(); dt.items.add(new File([`+jsString(string(content))+`], `+jsString(name)+`, {type: "text/csv"}));
document.querySelector(`+jsString(sel)+`).files = dt.files; return true; })()`, new(bool))
}

// TestBrowserReconciliation: the auditor reads the receivables, finds no
// import form, and a forged import is refused (403) with nothing changed;
// the admin imports a statement with one planted difference and reads the
// report, imports it again and is told nothing changed, then sees a bad
// file refused with its row named. Every page axe-clean, screenshots at
// 360 and 1280 px.
func TestBrowserReconciliation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := e.serve(t)
	b := browser.New(t)
	t.Cleanup(func() { journaltest.Check(t, e.rdb) })
	orders := reconPayments(t, e, 4)
	t.Run("auditor reads only", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "al@ops.test")
		pg.Go(base + "/reconciliation")
		if st := pg.LastStatus(); st != 200 {
			t.Fatalf("/reconciliation: %d", st)
		}
		var rows int
		var offered bool
		pg.Eval(`document.querySelectorAll("[data-receivable]").length`, &rows)
		pg.Eval(`document.querySelector("[data-recon-import]") !== null`, &offered)
		if rows != 1 || offered {
			t.Fatalf("%d receivables, import form offered %v", rows, offered)
		}
		shoot(t, pg, "admin-recon-auditor")
		before := e.state(t)
		forge(t, pg, base+"/reconciliation", map[string]string{"channel": reconCh, "day": "2026-11-27"}, true)
		pg.AllowErrorStatus(403)
		if e.state(t) != before {
			t.Fatal("a forged import changed Redis")
		}
	})
	t.Run("admin", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "ann@ops.test")
		pg.Go(base + "/reconciliation")
		shoot(t, pg, "admin-recon")
		file := statementOf(t, orders, func(i int, r *statement.Row) {
			if i == 1 {
				r.Fee += 5 // the provider kept 0.05 more than we priced
			}
		})
		importFile := func(content []byte) {
			pg.Eval(`document.querySelector("#recon-channel").value = "`+reconCh+`"; document.querySelector("#recon-day").value = "2026-11-27"; true`, new(bool))
			chooseFile(pg, "#recon-file", "wallet_a-2026-11-27.csv", content)
			pg.Submit("form[data-recon-import]")
		}
		importFile(file)
		pg.WaitVisible("[data-recon-report]")
		var counts string
		pg.Eval(`Array.from(document.querySelectorAll("[data-kind]")).map(r => r.dataset.kind + ":" + r.cells[1].textContent).join("|")`, &counts)
		if counts != "matched:4|missing_with_us:0|missing_at_provider:0|amount_differs:0|fee_differs:1|duplicate:0" {
			t.Fatalf("counts %q", counts)
		}
		if txt := pg.Text("[data-receivables]"); !strings.Contains(txt, "0.00") {
			t.Fatalf("the receivable after the import: %q", txt)
		}
		shoot(t, pg, "admin-recon-report")
		importFile(file)
		pg.WaitVisible("[data-again]")
		shoot(t, pg, "admin-recon-again")
		importFile(append(append([]byte{}, file...), "WAX,PX,1.0.0,CNY,0.00,1.00,2026-11-27 01:00:00,x\r\n"...))
		pg.WaitVisible("[data-recon-problem]")
		pg.AllowErrorStatus(400)
		if txt := pg.Text("[data-recon-problem]"); !strings.Contains(txt, "row 6") {
			t.Fatalf("the refusal says %q", txt)
		}
		shoot(t, pg, "admin-recon-refused")
	})
}
