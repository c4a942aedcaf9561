package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Keys a payer without a mouse uses, for Press.
const (
	KeyTab   = kb.Tab
	KeyEnter = kb.Enter
	KeySpace = " "
	KeyDown  = kb.ArrowDown
)

// Press sends key events to whatever has the focus, as a keyboard does:
// Tab moves the focus, Space and Enter act on the focused control. It does
// not wait for a page a key may load.
func (p *Page) Press(keys ...string) {
	p.t.Helper()
	for _, k := range keys {
		p.do(fmt.Sprintf("press %q", k), chromedp.KeyEvent(k))
	}
}

// TabTo presses Tab until the element matching sel has the focus, at most
// max times, and fails the test when it never gets it: the element is not
// reachable from the keyboard.
func (p *Page) TabTo(sel string, max int) {
	p.t.Helper()
	for range max {
		p.Press(KeyTab)
		var ok bool
		p.Eval(fmt.Sprintf(`document.activeElement === document.querySelector(%s)`, jsString(sel)), &ok)
		if ok {
			return
		}
	}
	p.fail("%s not reached with %d Tab presses; the focus is on %s", sel, max,
		p.peek(`document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : "nothing"`))
}

// Opened runs open (a step that opens a new tab, such as a link with
// target=_blank) and returns the new tab as a Page of the same test, of
// the same width, its problems recorded and checked as this one's.
func (p *Page) Opened(open func()) *Page {
	p.t.Helper()
	self := chromedp.FromContext(p.ctx).Target.TargetID
	ch := chromedp.WaitNewTarget(p.ctx, func(i *target.Info) bool { return i.OpenerID == self })
	open()
	var id target.ID
	select {
	case id = <-ch:
	case <-waitCtx(p).Done():
		p.fail("no new tab opened within %v", p.timeout)
	}
	rec := &recorder{requests: map[string]string{}}
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id), chromedp.WithListener(rec.record))
	p.t.Cleanup(cancel)
	if err := firstRun(ctx, cancel, DefaultTimeout); err != nil {
		p.fail("attach to the new tab: %v", err)
	}
	rec.setMainFrame(string(id))
	np := &Page{tab: &tab{t: p.t, ctx: ctx, timeout: p.timeout}, rec: rec}
	np.SetWidth(p.width)
	p.t.Cleanup(func() { np.AssertNoConsoleErrors(p.t) })
	return np
}

// waitCtx is a context that ends after the page's timeout.
func waitCtx(p *Page) context.Context {
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	p.t.Cleanup(cancel)
	return ctx
}
