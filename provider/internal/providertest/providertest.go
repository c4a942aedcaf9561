// Package providertest is what the provider families' tests share: a
// caller with its own metrics, a stand-in gateway server on a real port,
// an inbox for the notifications it receives, the shared signature
// vectors, and providers that misbehave. Only _test files import it.
//
// It holds the scaffolding, not the assertions: what a family's receiver
// hands to Verify and what its tests expect stay in the family, where the
// protocol is.
package providertest

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/recon"
)

// Wait is how long a test waits for something that should arrive.
const Wait = 5 * time.Second

// QuietLog is a logger that writes nothing, so that expected failures do
// not clutter test output.
func QuietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Caller is a provider.Caller for family with its own metrics registry, so
// that tests may build as many as they like; client nil is the default.
func Caller(t testing.TB, family string, cfg provider.CallerConfig, client *http.Client) *provider.Caller {
	t.Helper()
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return provider.NewCaller(family, cfg, client, m, QuietLog())
}

// Server is a stand-in for the gateway over real HTTP. Its address is
// known before it serves, because the simulators and adapters mounted on
// it are configured with it.
type Server struct {
	Base string // "http://127.0.0.1:port"
	t    testing.TB
	ln   net.Listener
}

// Listen reserves a local port for a Server.
func Listen(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &Server{Base: "http://" + ln.Addr().String(), t: t, ln: ln}
}

// App is what Serve runs: a fiber app (web/sandbox/sandboxtest.App), named
// by what Serve needs of it so that this package imports no HTTP framework.
type App interface {
	Listener(ln net.Listener) error
	ShutdownWithTimeout(d time.Duration) error
}

// Serve runs app on the server's port until the test ends.
func (s *Server) Serve(app App) {
	go func() { _ = app.Listener(s.ln) }()
	s.t.Cleanup(func() { _ = app.ShutdownWithTimeout(2 * time.Second) })
}

// Inbox is what a stand-in receiver got, in order, for tests that take
// one delivery after another.
type Inbox[T any] struct{ c chan T }

// NewInbox is an inbox that holds 16 deliveries nobody has taken yet.
func NewInbox[T any]() *Inbox[T] { return &Inbox[T]{c: make(chan T, 16)} }

// Put delivers v.
func (in *Inbox[T]) Put(v T) { in.c <- v }

// Next takes the next delivery, failing the test after Wait.
func (in *Inbox[T]) Next(t testing.TB) T {
	t.Helper()
	v, ok := in.Within(Wait)
	if !ok {
		t.Fatal("no notification arrived")
	}
	return v
}

// Within takes the next delivery if one arrives within d.
func (in *Inbox[T]) Within(d time.Duration) (T, bool) {
	select {
	case v := <-in.c:
		return v, true
	case <-time.After(d):
		var zero T
		return zero, false
	}
}

// Log keeps every delivery, for tests that look for one among the
// provider's retries and intermediate notifications.
type Log[T any] struct {
	mu   sync.Mutex
	got  []T
	wake chan struct{}
}

// Add records v.
func (l *Log[T]) Add(v T) {
	l.mu.Lock()
	l.got = append(l.got, v)
	if l.wake == nil {
		l.wake = make(chan struct{}, 1)
	}
	w := l.wake
	l.mu.Unlock()
	select {
	case w <- struct{}{}:
	default:
	}
}

// All is what arrived so far.
func (l *Log[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.got...)
}

// Last is the latest delivery (the zero value before any).
func (l *Log[T]) Last() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	var v T
	if len(l.got) > 0 {
		v = l.got[len(l.got)-1]
	}
	return v
}

// WaitFor returns the first delivery that match accepts, failing the test
// with "no <what> arrived" after Wait.
func (l *Log[T]) WaitFor(t testing.TB, what string, match func(T) bool) T {
	t.Helper()
	deadline := time.After(Wait)
	for {
		l.mu.Lock()
		if l.wake == nil {
			l.wake = make(chan struct{}, 1)
		}
		w := l.wake
		for _, v := range l.got {
			if match(v) {
				l.mu.Unlock()
				return v
			}
		}
		l.mu.Unlock()
		select {
		case <-w:
		case <-deadline:
			t.Fatalf("no %s arrived", what)
		}
	}
}

// Hang is a provider that never answers: it reads the request, so that the
// server notices the client giving up, and waits for that, or Wait.
func Hang(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(Wait):
	}
}

// NoRedirects is a copy of c (nil: a client with a Wait time-out) that
// shows redirects instead of following them, so a test sees where the
// payer would be sent.
func NoRedirects(c *http.Client) *http.Client {
	cc := http.Client{Timeout: Wait}
	if c != nil {
		cc = *c
	}
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
}

// PostForm posts a urlencoded form with client, without following a
// redirect (client nil: NoRedirects(nil)), and closes the answer's body.
func PostForm(t testing.TB, client *http.Client, target, form string) *http.Response {
	t.Helper()
	if client == nil {
		client = NoRedirects(nil)
	}
	res, err := client.Post(target, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// Choose plays the payer on a wallet's page, which answers the choice
// itself (HTTP 200) rather than sending the payer on.
func Choose(t testing.TB, page, outcome string) {
	t.Helper()
	if res := Press(t, nil, page, outcome); res.StatusCode != http.StatusOK {
		t.Fatalf("choice: HTTP %d", res.StatusCode)
	}
}

// Press plays the tester on a simulator's page with client (nil: the
// default client): opens the page, checks that it offers Pay and shows
// each of shows, then posts outcome ("pay" or "fail") and returns the
// answer to that post, its body closed.
func Press(t testing.TB, client *http.Client, page, outcome string, shows ...string) *http.Response {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	ok := res.StatusCode == http.StatusOK && strings.Contains(string(body), `value="pay"`)
	for _, s := range shows {
		ok = ok && strings.Contains(string(body), s)
	}
	if !ok {
		t.Fatalf("page: HTTP %d %s", res.StatusCode, body)
	}
	res, err = client.PostForm(page, url.Values{"outcome": {outcome}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// Statement fetches today's settlement statement from a simulator at
// statementURL (the date is added) through c and parses it with parse, as
// the reconciliation will: the lines, or the test ends with the answer.
func Statement(t testing.TB, c *http.Client, statementURL string, parse func(io.Reader) ([]recon.Line, error)) []recon.Line {
	t.Helper()
	resp, err := c.Get(statementURL + "?date=" + time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	lines, err := parse(strings.NewReader(string(body)))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("statement: %d %s: %v", resp.StatusCode, body, err)
	}
	return lines
}
