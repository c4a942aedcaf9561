package browser

import (
	"fmt"
	"strings"
	"testing"
)

// CheckNoOverflow fails t for every element inside the first element
// matching container (e.g. "main") whose box reaches past the container's
// content box, or past the viewport: a long order id, address or hash
// that does not wrap at this width.
func (l Look) CheckNoOverflow(t testing.TB, container string) {
	t.Helper()
	var out []string
	l.p.Eval(fmt.Sprintf(`(() => {
		const box = document.querySelector(%s);
		if (!box) return ["no element matches the container"];
		const cs = getComputedStyle(box), r = box.getBoundingClientRect();
		const right = Math.min(r.right - parseFloat(cs.paddingRight) - parseFloat(cs.borderRightWidth),
			document.documentElement.clientWidth);
		const bad = [];
		for (const e of box.querySelectorAll("*")) {
			const er = e.getBoundingClientRect();
			if (er.width === 0 || getComputedStyle(e).position === "fixed") continue;
			if (er.right > right + 0.5) bad.push(e.tagName.toLowerCase() + (e.className ? "." + e.className : "") +
				" ends at " + Math.round(er.right) + " px, past " + Math.round(right) + ": " + (e.textContent || "").trim().slice(0, 40));
		}
		if (document.documentElement.scrollWidth > document.documentElement.clientWidth)
			bad.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " px wide");
		return bad;
	})()`, jsString(container)), &out)
	if len(out) > 0 {
		t.Errorf("browser: at %d px, %d elements overflow %s:\n\t%s", l.p.width, len(out), container, strings.Join(out, "\n\t"))
	}
}

// CheckNoInnerScroll fails t for every element matching selector that
// scrolls sideways inside itself at this width (its content wider than its
// box): a navigation bar whose last links hide past the right edge passes
// CheckNoOverflow, since the page itself does not scroll, yet nobody sees
// those links on a phone.
func (l Look) CheckNoInnerScroll(t testing.TB, selector string) {
	t.Helper()
	var out []string
	l.p.Eval(fmt.Sprintf(`(() => {
		const bad = [];
		for (const e of document.querySelectorAll(%s)) {
			if (e.scrollWidth > e.clientWidth + 1)
				bad.push(e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + " holds " +
					e.scrollWidth + " px in " + e.clientWidth + " px");
		}
		return bad;
	})()`, jsString(selector)), &out)
	if len(out) > 0 {
		t.Errorf("browser: at %d px, %d elements scroll sideways inside themselves:\n\t%s", l.p.width, len(out), strings.Join(out, "\n\t"))
	}
}
