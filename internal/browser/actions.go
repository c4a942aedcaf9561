package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// pollInterval is how often WaitText and WaitURL look again.
const pollInterval = 50 * time.Millisecond

// Go loads url in the tab and waits for its load event.
func (p *Page) Go(url string) {
	p.t.Helper()
	p.do("go to "+url, chromedp.Navigate(url))
}

// Click clicks the centre of the first element matching the CSS selector,
// once it is visible, with a real mouse event. It does not wait for a page
// the click may load: follow it with WaitVisible, WaitText or WaitURL.
func (p *Page) Click(sel string) {
	p.t.Helper()
	p.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// Fill replaces the value of the input or textarea matching sel by typing
// text into it (key and input events, as a person's typing), or chooses the
// option with value text in a select.
func (p *Page) Fill(sel, text string) {
	p.t.Helper()
	p.do("fill "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	tag := run(p, "clear "+sel, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const e = document.querySelector(%s);
		if (e.tagName === "SELECT") {
			e.value = %s;
			if (e.value !== %[2]s) return "SELECT without option";
			e.dispatchEvent(new Event("input", {bubbles: true}));
			e.dispatchEvent(new Event("change", {bubbles: true}));
		} else {
			e.focus();
			e.value = "";
		}
		return e.tagName;
	})()`, jsString(sel), jsString(text))))
	switch tag {
	case "SELECT":
	case "SELECT without option":
		p.fail("fill %s: the select has no option with value %q", sel, text)
	default:
		p.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
	}
}

// Submit submits the form matching formSel as its submit button would
// (validation and submit handlers run) and waits for the page the
// submission loads. A form that a script handles without loading a page
// times out here: use Click and WaitText for those.
func (p *Page) Submit(formSel string) {
	p.t.Helper()
	submit := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ok, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
			const f = document.querySelector(%s);
			if (!(f instanceof HTMLFormElement)) return false;
			f.requestSubmit();
			return true;
		})()`, jsString(formSel)))(ctx, t)
		if err == nil && !ok {
			err = errors.New("no form matches")
		}
		return err
	})
	// A wait that ended on a page still being parsed (its flash came before
	// the form) must not make the form look absent.
	p.do("wait for "+formSel, chromedp.WaitReady(chromedp.CSS(formSel)))
	p.do("submit "+formSel, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.WaitEvent(page.LoadEventFired, nil, submit)(ctx, t)
		return err
	}))
}

// WaitVisible waits until an element matching the CSS selector is visible.
func (p *Page) WaitVisible(sel string) {
	p.t.Helper()
	p.do("wait for "+sel+" to be visible", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// WaitText waits until the visible text of the first element matching sel
// contains substr. It keeps looking across page loads, so it can follow a
// click that loads another page.
func (p *Page) WaitText(sel, substr string) {
	p.t.Helper()
	q := jsString(sel)
	found := fmt.Sprintf(`(() => { const e = document.querySelector(%s); return !!e && e.innerText.includes(%s); })()`, q, jsString(substr))
	if !p.poll(found) {
		got := p.peek(fmt.Sprintf(`(() => { const e = document.querySelector(%s); return e ? JSON.stringify(e.innerText) : "no such element"; })()`, q))
		p.fail("wait for %s to contain %q: after %v it has %s", sel, substr, p.timeout, got)
	}
}

// WaitTrue waits until the JavaScript expression expr is true, across page
// loads; it reports whether it became true in time, for a test that then
// looks at which of several outcomes it reached.
func (p *Page) WaitTrue(expr string) bool {
	p.t.Helper()
	return p.poll(expr)
}

// WaitURL waits until the tab's URL contains substr, e.g. after a click that
// redirects.
func (p *Page) WaitURL(substr string) {
	p.t.Helper()
	if !p.poll(fmt.Sprintf(`location.href.includes(%s)`, jsString(substr))) {
		p.fail("wait for the URL to contain %q: after %v it is %s", substr, p.timeout, p.location())
	}
}

// Text is the visible text (innerText) of the first element matching sel,
// waiting for the element to exist.
func (p *Page) Text(sel string) string {
	p.t.Helper()
	return run(p, "read the text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// URL is the tab's current URL.
func (p *Page) URL() string {
	p.t.Helper()
	return run(p, "read the URL", chromedp.Location())
}

// Eval runs the JavaScript expression in the page (awaiting a promise) and
// decodes its JSON value into out; out may be nil to ignore the value.
func (p *Page) Eval(js string, out any) {
	p.t.Helper()
	raw := run(p, "evaluate "+js, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if out == nil {
		return
	}
	if len(raw) == 0 {
		p.fail("evaluate %s: the result is undefined", js)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		p.fail("evaluate %s: decode %s: %v", js, raw, err)
	}
}

// poll evaluates the boolean expression until it is true or the page's
// timeout passes. An error (the page is between two documents) counts as
// false: the next look is in a new document.
func (p *tab) poll(expr string) bool {
	deadline := time.Now().Add(p.timeout)
	for {
		ctx, cancel := context.WithDeadline(p.ctx, deadline)
		// Only a parsed document counts: an expression true on the first half
		// of a page would let the next step look for what is yet to come.
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState !== "loading" && (`+expr+`)`))
		cancel()
		if err == nil && ok {
			return true
		}
		if time.Now().Add(pollInterval).After(deadline) {
			return false
		}
		time.Sleep(pollInterval)
	}
}

// peek evaluates a string expression for a failure message; it never fails
// the test.
func (p *tab) peek(expr string) string {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return s
}

// jsString quotes s as a JavaScript string literal (JSON is a subset).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ForgePost builds a form posting fields to path in the page and submits
// it, as an attacker's page or a hand-edited form would, and returns the
// answer's status (an error status is allowed, since refusals are the
// point of such a test).
func (p *Page) ForgePost(path string, fields map[string]string) int {
	b, _ := json.Marshal(fields)
	p.Eval(fmt.Sprintf(`(() => {
		const f = document.createElement("form");
		f.method = "post"; f.action = %q; f.id = "forged";
		for (const [k, v] of Object.entries(%s)) {
			const i = document.createElement("input"); i.type = "hidden"; i.name = k; i.value = v; f.appendChild(i);
		}
		document.body.appendChild(f);
		return true;
	})()`, path, b), nil)
	p.Submit("#forged")
	st := p.LastStatus()
	if st >= 400 {
		p.AllowErrorStatus(st)
	}
	return st
}
