package browser

import (
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// nonce is the pages' CSP nonce; a fixed one will do for a test server.
const nonce = "selftest-nonce"

const csp = "default-src 'self'; script-src 'nonce-" + nonce + "'"

// site serves the self-test's pages, all under csp. Scripts come from the
// same origin with the nonce, as the payer pages' do.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", csp)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width">
<title>selftest</title></head><body>%s</body></html>`, body)
		})
	}
	script := func(path, js string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, js)
		})
	}
	page("/{$}", `<h1>Form</h1>
<button id="btn" type="button">Press</button> <span id="out">not yet</span>
<form id="f" method="post" action="/submit">
<input id="name" name="name"> <select id="color" name="color"><option value="red">Red</option><option value="green">Green</option></select>
<button type="submit">Send</button></form>
<script nonce="`+nonce+`" src="/app.js"></script>`)
	script("/app.js", `document.getElementById("btn").addEventListener("click", () => {
	document.getElementById("out").textContent = "pressed";
});`)
	mux.HandleFunc("POST /submit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		fmt.Fprintf(w, `<!doctype html><p id="greeting">Hello, %s (%s)</p>`,
			html.EscapeString(r.FormValue("name")), html.EscapeString(r.FormValue("color")))
	})
	page("/tall", `<link rel="stylesheet" href="/tall.css"><div id="tall">tall</div>`)
	mux.HandleFunc("/tall.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, `#tall { height: 2000px; background: #def; }`)
	})
	page("/console-error", `<p>logs</p><script nonce="`+nonce+`" src="/error.js"></script>`)
	script("/error.js", `console.error("deliberate error", 42);`)
	page("/exception", `<p>throws</p><script nonce="`+nonce+`" src="/throw.js"></script>`)
	script("/throw.js", `throw new Error("deliberate exception");`)
	page("/inline", `<p>inline</p><script>document.title = "ran";</script>`)
	page("/missing", `<img src="/nope.png" alt="">`)
	page("/cookie", `<p id="cookie">x</p>`)
	page("/unnamed", `<main><h1>a11y</h1><button id="empty"></button></main>`)
	page("/keys", `<main><h1>keys</h1><a href="/cookie" id="first">first</a>
<label><input type="radio" name="r" value="a" id="ra"> A</label><label><input type="radio" name="r" value="b" id="rb"> B</label>
<button id="go" type="button">Go</button> <span id="out">not yet</span></main>
<script nonce="`+nonce+`" src="/keys.js"></script>`)
	script("/keys.js", `document.getElementById("go").addEventListener("click", () => {
	const r = document.querySelector("input[name=r]:checked");
	document.getElementById("out").textContent = "chose " + (r ? r.value : "nothing");
});`)
	mux.HandleFunc("/overflow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		wrap := ""
		if r.URL.Query().Get("wrap") == "1" {
			wrap = "overflow-wrap:anywhere"
		}
		fmt.Fprintf(w, `<!doctype html><html lang="en"><meta name="viewport" content="width=device-width">
<main style="width:300px;padding:10px;%s"><p>Order <code>%s</code></p></main>`, wrap, strings.Repeat("a1", 50))
	})
	mux.HandleFunc("/refused", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `<!doctype html><title>refused</title><p id="refused">refused</p><script nonce="%s" src="/error.js"></script>`, nonce)
	})
	mux.HandleFunc("/refused-quietly", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `<!doctype html><title>refused</title><p id="refused">refused</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// A payer's path through a page: load, click a script's button, fill and
// submit a form, read the next page; no errors on the way, and the CSP
// header the server sent is readable.
func TestBrowserFormFlow(t *testing.T) {
	srv := site(t)
	p := New(t).NewPage(Narrow)
	p.Go(srv.URL + "/")
	if got := p.LastResponseHeaders().Get("Content-Security-Policy"); got != csp {
		t.Errorf("Content-Security-Policy = %q, want %q", got, csp)
	}
	p.WaitVisible("#btn")
	p.Click("#btn")
	p.WaitText("#out", "pressed")

	p.Fill("#name", "Ada")
	p.Fill("#name", "Ada L") // replaces, does not append
	p.Fill("#color", "green")
	p.Submit("#f")
	if got, want := p.Text("#greeting"), "Hello, Ada L (green)"; got != want {
		t.Errorf("after submit: %q, want %q", got, want)
	}
	if got := p.URL(); got != srv.URL+"/submit" {
		t.Errorf("URL = %q, want %s/submit", got, srv.URL)
	}
	if p.LastStatus() != http.StatusOK {
		t.Errorf("LastStatus = %d, want 200", p.LastStatus())
	}
	p.AssertNoConsoleErrors(t)
}

// Screenshots cover the whole page at the viewport's width, one file per
// width.
func TestBrowserScreenshotWidths(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ScreenshotsEnv, dir)
	srv := site(t)
	b := New(t)
	for _, width := range []int{Narrow, Wide} {
		p := b.NewPage(width)
		p.Go(srv.URL + "/tall")
		path := p.Look().Screenshot("tall")
		if want := filepath.Join(dir, fmt.Sprintf("tall-%d.png", width)); path != want {
			t.Errorf("path %s, want %s", path, want)
		}
		w, h := pngSize(t, path)
		if w != width || h < 2000 {
			t.Errorf("%s is %dx%d; want %d wide and at least 2000 high (the whole page)", path, w, h, width)
		}
		p.AssertNoConsoleErrors(t)
	}
}

func pngSize(t *testing.T, path string) (w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg.Width, cfg.Height
}

// Every kind of error a page can report is collected, and fails
// AssertNoConsoleErrors.
func TestBrowserProblems(t *testing.T) {
	srv := site(t)
	cases := []struct {
		name, path, kind, text string
	}{
		{"console.error", "/console-error", KindConsole, "deliberate error 42"},
		{"uncaught exception", "/exception", KindException, "deliberate exception"},
		{"inline script blocked by CSP", "/inline", KindCSP, "script-src"},
		{"missing image", "/missing", KindLog, "404"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(t).NewPage(Wide)
			p.Go(srv.URL + tc.path)
			if !hasProblem(p.Problems(), tc.kind, tc.text) {
				t.Errorf("problems %v: want a %s containing %q", p.Problems(), tc.kind, tc.text)
			}
			f := &fakeTB{TB: t}
			p.AssertNoConsoleErrors(f)
			if !f.failed || !strings.Contains(f.msg, tc.text) {
				t.Errorf("AssertNoConsoleErrors: failed=%v %q; want a failure naming %q", f.failed, f.msg, tc.text)
			}
		})
	}
	t.Run("inline script did not run", func(t *testing.T) {
		p := New(t).NewPage(Wide)
		p.Go(srv.URL + "/inline")
		var title string
		p.Eval(`document.title`, &title)
		if title != "selftest" {
			t.Errorf("title %q: the inline script ran despite the CSP", title)
		}
		p.AssertNoConsoleErrors(&fakeTB{TB: t}) // the violation is the point
	})
}

func hasProblem(problems []Problem, kind, text string) bool {
	for _, p := range problems {
		if p.Kind == kind && strings.Contains(p.Text, text) {
			return true
		}
	}
	return false
}

// A failed step ends the test naming the page and a screenshot of it.
func TestBrowserFailureReport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ScreenshotsEnv, dir)
	srv := site(t)
	f := &fakeTB{TB: t}
	p := New(f).NewPage(Narrow)
	p.Go(srv.URL + "/")
	p.SetTimeout(300 * time.Millisecond)
	catch(func() { p.WaitText("#out", "never") })
	if !f.failed {
		t.Fatal("WaitText for a text that never comes did not fail")
	}
	shot := filepath.Join(dir, "FAIL-"+fileName(t.Name())+"-360.png")
	for _, want := range []string{`"not yet"`, srv.URL + "/", shot} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("failure message %q does not mention %q", f.msg, want)
		}
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("no screenshot of the failure: %v", err)
	}
}

// Cookies set for a site are sent to it, and each test's page has a
// browser context of its own.
func TestBrowserCookies(t *testing.T) {
	srv := site(t)
	b := New(t)
	p := b.NewPage(Wide)
	p.SetCookie(srv.URL, &http.Cookie{Name: "session", Value: "s1", Path: "/"})
	p.Go(srv.URL + "/cookie")
	var sent string
	p.Eval(`document.cookie`, &sent)
	if sent != "session=s1" {
		t.Errorf("document.cookie = %q, want session=s1", sent)
	}
	if c := p.Cookies(); len(c) != 1 || c[0].Name != "session" || c[0].Value != "s1" {
		t.Errorf("Cookies() = %v, want session=s1", c)
	}
	other := b.NewPage(Wide)
	other.Go(srv.URL + "/cookie")
	if c := other.Cookies(); len(c) != 0 {
		t.Errorf("a second page sees cookies %v; want its own empty jar", c)
	}
}

// A problem no step asserted fails the test when it ends: the page's own
// cleanup checks what is left.
func TestBrowserUncheckedProblemsFailAtTheEnd(t *testing.T) {
	srv := site(t)
	f := &fakeTB{TB: t}
	// Registered first, so it runs after the page's own check.
	t.Cleanup(func() {
		if !f.failed || !strings.Contains(f.msg, "deliberate error") {
			t.Errorf("a console error nobody checked passed: failed=%v %q", f.failed, f.msg)
		}
	})
	p := New(f).NewPage(Wide)
	p.Go(srv.URL + "/console-error")
	p.Go(srv.URL + "/") // moved on without asserting
}

// AllowErrorStatus drops the refused document's failed load and nothing
// else: a console error on the refusal page is still reported.
func TestBrowserAllowErrorStatus(t *testing.T) {
	srv := site(t)
	t.Run("only the failed load is allowed", func(t *testing.T) {
		p := New(t).NewPage(Wide)
		p.Go(srv.URL + "/refused-quietly")
		p.AllowErrorStatus(http.StatusBadRequest)
		if pr := p.Problems(); len(pr) != 0 {
			t.Errorf("problems left after allowing the 400: %v", pr)
		}
	})
	t.Run("another problem on the page stays", func(t *testing.T) {
		p := New(t).NewPage(Wide)
		p.Go(srv.URL + "/refused")
		p.AllowErrorStatus(http.StatusBadRequest)
		f := &fakeTB{TB: t}
		p.AssertNoConsoleErrors(f)
		if !f.failed || !strings.Contains(f.msg, "deliberate error") {
			t.Errorf("the console error was dropped with the 400: %q", f.msg)
		}
	})
	t.Run("a status other than the one allowed fails", func(t *testing.T) {
		f := &fakeTB{TB: t}
		p := New(t).NewPage(Wide)
		p.Go(srv.URL + "/refused-quietly")
		p.t = f
		p.AllowErrorStatus(http.StatusUnauthorized)
		p.t = t
		p.AllowErrorStatus(http.StatusBadRequest)
		if !f.failed {
			t.Error("allowing a 401 on a 400 page passed")
		}
	})
}

// CheckA11y fails on a serious violation (a button without a name) and
// passes a clean page.
func TestBrowserA11y(t *testing.T) {
	if _, err := axeSource(); err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("axe-core: %v; scripts/axe.sh installs it", err)
		}
		t.Skipf("axe-core: %v; scripts/axe.sh installs it", err)
	}
	srv := site(t)
	p := New(t).NewPage(Wide)
	p.Go(srv.URL + "/unnamed")
	f := &fakeTB{TB: t}
	p.Look().CheckA11y(f, "unnamed")
	if !f.failed || !strings.Contains(f.msg, "button-name") {
		t.Errorf("a button without a name passed: %q", f.msg)
	}
	p.Go(srv.URL + "/keys")
	p.Look().CheckA11y(t, "keys")
}

// Press and TabTo drive a page from the keyboard alone.
func TestBrowserKeyboard(t *testing.T) {
	srv := site(t)
	p := New(t).NewPage(Narrow)
	p.Go(srv.URL + "/keys")
	p.TabTo("#ra", 5)
	p.Press(KeySpace)
	p.TabTo("#go", 5)
	p.Press(KeyEnter)
	p.WaitText("#out", "chose a")
	f := &fakeTB{TB: t}
	catch(func() {
		p.t = f
		p.SetTimeout(time.Second)
		p.TabTo("#nowhere", 3)
	})
	p.t = t
	if !f.failed {
		t.Error("TabTo an element that does not exist passed")
	}
}

// CheckNoOverflow fails on an unbreakable id that runs past its box and
// passes once the box lets it wrap.
func TestBrowserOverflow(t *testing.T) {
	srv := site(t)
	p := New(t).NewPage(Narrow)
	p.Go(srv.URL + "/overflow")
	f := &fakeTB{TB: t}
	p.Look().CheckNoOverflow(f, "main")
	if !f.failed || !strings.Contains(f.msg, "code") {
		t.Errorf("a 100-character id in a 300 px box passed: %q", f.msg)
	}
	p.Go(srv.URL + "/overflow?wrap=1")
	p.Look().CheckNoOverflow(t, "main")
}
