package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestChartsReadByKeyboardAndPointer: the overview's charts have a value
// axis and labels under them; Tab reaches each bar or point, which names
// its label and value to a screen reader and shows the value while it
// has the focus or the pointer, and shows nothing otherwise.
func TestChartsReadByKeyboardAndPointer(t *testing.T) {
	e := newEnv(t)
	e.fresh(access.RoleOwner)
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)
	frametest.Login(t, pg, e.base, e.users[access.RoleOwner], frametest.Password, e.code(t, e.users[access.RoleOwner]))
	pg.Go(e.base + "/")
	if pg.LastStatus() != http.StatusOK {
		t.Fatalf("overview: %d", pg.LastStatus())
	}
	var axis struct{ Y, X, Points int }
	pg.Eval(`({Y: document.querySelectorAll("svg[data-chart] [data-ytick]").length, X: document.querySelectorAll("svg[data-chart] [data-xtick]").length,
		Points: document.querySelectorAll("svg[data-chart] [data-point]").length})`, &axis)
	if axis.Y < 3 || axis.X < 1 || axis.Points < 1 {
		t.Fatalf("charts drawn without axes or points: %+v", axis)
	}
	shown := `(() => { const p = document.activeElement; const v = p && p.querySelector(".val");
		return v ? getComputedStyle(v).visibility + "|" + p.getAttribute("aria-label") + "|" + v.textContent : "no value" })()`
	var before string
	pg.Eval(`getComputedStyle(document.querySelector("svg[data-chart] [data-point] .val")).visibility`, &before)
	if before != "hidden" {
		t.Errorf("a value shows before anything is pointed at: %s", before)
	}
	pg.TabTo("svg[data-chart] [data-point]", 60)
	var got string
	pg.Eval(shown, &got)
	parts := strings.SplitN(got, "|", 3)
	if len(parts) != 3 || parts[0] != "visible" || parts[1] == "" || parts[1] != parts[2] {
		t.Errorf("focused point: %q, want its value visible and named the same to a screen reader", got)
	}
	pg.Press(browser.KeyTab)
	pg.Eval(shown, &got)
	if !strings.HasPrefix(got, "visible|") {
		t.Errorf("the next Tab stop shows %q, want the next point's value", got)
	}
	for _, w := range []int{browser.Narrow, browser.Wide} {
		pg.SetWidth(w)
		pg.Look().CheckNoOverflow(t, "body")
		pg.Look().CheckA11y(t, "overview charts")
		pg.Look().Screenshot("console-overview-chart-focus")
	}
}
