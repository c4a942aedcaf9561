package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Kinds of Problem.
const (
	KindConsole   = "console.error" // console.error (or a failed console.assert)
	KindException = "exception"     // an uncaught exception or unhandled rejection
	KindLog       = "log"           // the browser's own error log: failed loads, security
	KindNetwork   = "network"       // a request that failed or was blocked
	KindCSP       = "csp"           // a securitypolicyviolation event
)

// Problem is one error the page reported.
type Problem struct {
	Kind string // one of the Kind constants
	Text string
	URL  string // where it happened, when known
}

func (p Problem) String() string {
	if p.URL == "" {
		return p.Kind + ": " + p.Text
	}
	return p.Kind + ": " + p.Text + " (" + p.URL + ")"
}

// cspBinding is the function the page calls with each CSP violation.
const cspBinding = "__browserTestCSPViolation"

// reportCSP makes every document of the tab pass its securitypolicyviolation
// events to cspBinding. The script is the browser's, not the page's, so the
// page's CSP does not stop it.
func reportCSP() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: cspBinding}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `document.addEventListener("securitypolicyviolation", (e) => ` + cspBinding + `(JSON.stringify({
				directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber,
				disposition: e.disposition})));`,
		})
		return err
	})
}

// recorder keeps what the tab's events say. record runs on the tab's
// reading goroutine, so it only appends under a lock.
type recorder struct {
	mu        sync.Mutex
	mainFrame string
	problems  []Problem
	requests  map[string]string // request id → URL, to name failed loads
	reported  int               // problems[:reported] were reported to a test already
	status    int
	docURL    string // the last document's URL, for AllowErrorStatus
	headers   http.Header
}

func (r *recorder) setMainFrame(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mainFrame = id
}

func (r *recorder) record(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			r.add(KindConsole, argsText(e.Args), stackURL(e.StackTrace))
		}
	case *runtime.EventExceptionThrown:
		r.add(KindException, exceptionText(e.ExceptionDetails), e.ExceptionDetails.URL)
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError && !isFavicon(e.Entry.URL) {
			r.add(KindLog, string(e.Entry.Source)+": "+e.Entry.Text, e.Entry.URL)
		}
	case *runtime.EventBindingCalled:
		if e.Name == cspBinding {
			r.add(KindCSP, cspText(e.Payload), "")
		}
	case *network.EventRequestWillBeSent:
		r.requests[string(e.RequestID)] = e.Request.URL
	case *network.EventLoadingFailed:
		if url := r.requests[string(e.RequestID)]; !e.Canceled && !isFavicon(url) {
			r.add(KindNetwork, strings.TrimSpace(e.ErrorText+" "+string(e.BlockedReason)), url)
		}
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && string(e.FrameID) == r.mainFrame {
			r.status, r.headers, r.docURL = int(e.Response.Status), httpHeader(e.Response.Headers), e.Response.URL
		}
	}
}

// isFavicon tells the browser's own request for /favicon.ico, which a page
// without an icon answers with 404: that is no error of the page's.
func isFavicon(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Path == "/favicon.ico"
}

func (r *recorder) add(kind, text, url string) {
	r.problems = append(r.problems, Problem{Kind: kind, Text: text, URL: url})
}

// Problems returns the errors the page has reported so far, oldest first,
// including those of tasks the page had queued when Problems was called.
func (p *Page) Problems() []Problem {
	p.settle()
	p.rec.mu.Lock()
	defer p.rec.mu.Unlock()
	return append([]Problem(nil), p.rec.problems...)
}

// AssertNoConsoleErrors fails t, listing them, when the page has reported
// any console error, uncaught exception, CSP violation or failed load that
// no earlier assertion reported. NewPage also runs it when the test ends,
// so a problem on a page no step checked (after a payment, a cancel, a
// polling time-out) still fails the test.
func (p *Page) AssertNoConsoleErrors(t testing.TB) {
	t.Helper()
	p.settle()
	p.rec.mu.Lock()
	problems := append([]Problem(nil), p.rec.problems[p.rec.reported:]...)
	p.rec.reported = len(p.rec.problems)
	p.rec.mu.Unlock()
	if len(problems) == 0 {
		return
	}
	var b strings.Builder
	for _, pr := range problems {
		b.WriteString("\n\t" + pr.String())
	}
	t.Errorf("browser: the page reported %d errors:%s", len(problems), b.String())
}

// LastResponseHeaders are the headers of the last document loaded in the
// tab's main frame (after Go, Submit or a click that loads a page), e.g.
// to check its Content-Security-Policy. Nil before the first load.
func (p *Page) LastResponseHeaders() http.Header {
	p.rec.mu.Lock()
	defer p.rec.mu.Unlock()
	return p.rec.headers.Clone()
}

// LastStatus is the HTTP status of that document; 0 before the first load.
func (p *Page) LastStatus() int {
	p.rec.mu.Lock()
	defer p.rec.mu.Unlock()
	return p.rec.status
}

// settle lets the page run the tasks it has queued (CSP violation events
// are dispatched in one) and waits for its answer; the tab's events arrive
// in order, so every event those tasks caused has been recorded when the
// answer comes. It never fails: a closed page has nothing more to say.
func (p *tab) settle() {
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	defer cancel()
	_, _ = chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](
		`new Promise((done) => setTimeout(() => setTimeout(done, 0), 0))`, chromedp.EvalAwaitPromise))
}

// httpHeader converts the protocol's headers (repeated values joined by
// newlines) to http.Header.
func httpHeader(h network.Headers) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		for _, line := range strings.Split(fmt.Sprint(v), "\n") {
			out.Add(k, line)
		}
	}
	return out
}

// argsText joins console arguments as DevTools shows them.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		var s string
		switch {
		case len(a.Value) > 0 && json.Unmarshal(a.Value, &s) == nil:
		case len(a.Value) > 0:
			s = string(a.Value)
		default:
			s = a.Description
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Text + " " + d.Exception.Description
	}
	return d.Text
}

func stackURL(s *runtime.StackTrace) string {
	if s == nil || len(s.CallFrames) == 0 {
		return ""
	}
	return s.CallFrames[0].URL
}

// cspText describes a violation reported through cspBinding.
func cspText(payload string) string {
	var v struct {
		Directive, Blocked, Source, Disposition string
		Line                                    int
	}
	if err := json.Unmarshal([]byte(payload), &v); err != nil {
		return payload
	}
	verb := "blocked"
	if v.Disposition == "report" { // a Content-Security-Policy-Report-Only header
		verb = "would block"
	}
	return fmt.Sprintf("%s %s %s at %s:%d", v.Directive, verb, v.Blocked, v.Source, v.Line)
}

// AllowErrorStatus accepts that the last document was answered with
// status (a refused form's 400, a wrong password's 401): the browser's
// "failed to load" entry for that one document is dropped, and nothing
// else, so another problem on the way still fails the test. It fails the
// test when the last document's status is not status.
func (p *Page) AllowErrorStatus(status int) {
	p.t.Helper()
	p.settle()
	p.rec.mu.Lock()
	defer p.rec.mu.Unlock()
	if p.rec.status != status {
		p.t.Errorf("browser: the last document answered %d, not the %d allowed", p.rec.status, status)
		return
	}
	want := fmt.Sprintf("status of %d", status)
	kept := p.rec.problems[:p.rec.reported]
	for _, pr := range p.rec.problems[p.rec.reported:] {
		if pr.Kind == KindLog && pr.URL == p.rec.docURL && strings.Contains(pr.Text, want) {
			continue
		}
		kept = append(kept, pr)
	}
	p.rec.problems = kept
}
