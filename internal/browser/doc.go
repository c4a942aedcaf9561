// Package browser drives a headless Chromium for end-to-end tests of the
// pages a payer sees (checkout/). Tests click and type as a person would and
// check what the browser shows, which a handler test cannot: that the
// scripts run under the page's Content-Security-Policy, that nothing logs an
// error, and how a page looks at a phone's and a desktop's width.
//
// One browser process serves a whole test binary: it starts at the first
// New and every test gets a tab of its own, in a browser context of its own
// (no cookies or storage shared between tests), closed when the test ends.
// That keeps memory modest when `go test` runs several packages at once on
// a small machine. Call Main from TestMain to stop the browser and remove
// its profile when the tests end.
//
// The browser is Debian's chromium (scripts/deps.sh installs it), or the
// binary that the CHROMIUM variable names. Where none is found, a test that
// needs it is skipped on a developer's machine and fails under CI=true
// (internal/testenv decides).
//
// Every action waits at most the page's timeout (DefaultTimeout unless
// SetTimeout changes it) and ends the test with t.Fatalf on failure, naming
// the page's URL and the screenshot saved at that moment.
//
//	func TestBrowserPayPage(t *testing.T) {
//		p := browser.New(t).NewPage(browser.Narrow)
//		p.Go(srv.URL + "/pay/" + id)
//		p.Click("#method-card")
//		p.WaitText("h1", "Card")
//		p.Look().Screenshot("pay-card")
//		p.AssertNoConsoleErrors(t)
//	}
package browser
