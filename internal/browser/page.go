package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Viewport widths in CSS pixels: a small phone and a desktop. Every payer
// page is checked at both.
const (
	Narrow = 360
	Wide   = 1280
)

// DefaultTimeout bounds each action of a page unless SetTimeout changes it.
const DefaultTimeout = 10 * time.Second

// viewportHeight is the window's height. Screenshots are not limited to it:
// they cover the page's whole content.
const viewportHeight = 800

// Page is one browser tab of one test: its own browser context (cookies,
// storage), its viewport width, and what the page reported (console errors,
// exceptions, CSP violations, the last document's response).
//
// Page's methods are the steps of a test (navigate, fill, click, read,
// what the page reported); how the page looks at its width (screenshots,
// axe-core, layout checks) is Look's, and the chromedp plumbing every step
// runs through is tab's.
type Page struct {
	*tab
	rec *recorder
}

// tab is the chromedp side of a Page: its context, width and timeout, and
// how an action runs within that timeout and ends the test when it fails.
type tab struct {
	t       testing.TB
	ctx     context.Context // the tab's chromedp context
	width   int
	timeout time.Duration
}

// NewPage opens a tab with a viewport width in CSS pixels (Narrow, Wide) at
// device scale 1. The tab and its browser context are closed when the test
// ends.
func (b *Browser) NewPage(width int) *Page {
	b.t.Helper()
	rec := &recorder{requests: map[string]string{}}
	ctx, cancel := chromedp.NewContext(b.ctx,
		chromedp.WithNewBrowserContext(),
		chromedp.WithListener(rec.record))
	b.t.Cleanup(cancel)
	if err := firstRun(ctx, cancel, DefaultTimeout); err != nil {
		b.t.Fatalf("browser: open a tab: %v", err)
	}
	rec.setMainFrame(string(chromedp.FromContext(ctx).Target.TargetID))
	p := &Page{tab: &tab{t: b.t, ctx: ctx, timeout: DefaultTimeout}, rec: rec}
	p.do("report CSP violations", reportCSP())
	p.SetWidth(width)
	// Runs before the tab closes (cleanups run last-registered first).
	b.t.Cleanup(func() { p.AssertNoConsoleErrors(b.t) })
	return p
}

// SetTimeout changes how long each later action may take.
func (p *Page) SetTimeout(d time.Duration) { p.timeout = d }

// SetWidth changes the viewport's width in CSS pixels; the page reflows as
// a resized window would.
func (p *Page) SetWidth(width int) {
	p.t.Helper()
	if width <= 0 {
		p.t.Fatalf("browser: viewport width %d: want a positive width", width)
	}
	p.do(fmt.Sprintf("set the viewport to %d px", width),
		chromedp.EmulateViewport(int64(width), viewportHeight, chromedp.EmulateScale(1)))
	p.width = width
}

// do runs the actions on the tab within the page's timeout, and ends the
// test when they fail.
func (p *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail("%s: %v", what, err)
	}
}

// run is do for an action with a result.
func run[T any](p *Page, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.fail("%s: %v", what, err)
	}
	return v
}

// fail ends the test, naming the page's URL and a screenshot of the moment,
// the two things one needs to understand a failed browser step.
func (p *tab) fail(format string, args ...any) {
	p.t.Helper()
	msg := fmt.Sprintf(format, args...)
	// Its own budget: the step may have failed for want of time.
	shot, err := p.save("FAIL-"+fileName(p.t.Name()), DefaultTimeout)
	if err != nil {
		shot = "none (" + err.Error() + ")"
	}
	p.t.Fatalf("browser: %s\n\tpage: %s\n\tscreenshot: %s", msg, p.location(), shot)
}

// location is the tab's URL for failure messages; it never fails the test.
func (p *tab) location() string {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	u, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return u
}
