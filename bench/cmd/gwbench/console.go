package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// consoleScenario is the merchant console's reads and its live order feeds.
type consoleScenario struct{ *bench }

// The console rows: the merchant console's two heaviest pages, the orders
// list and the overview, over the listing merchant's orders (max, then
// latency at half of it: the loopback client's time is the server's plus a
// few tens of microseconds), and the live page's cost to the create path,
// createorder's max with no console open, with liveConsoles event streams
// of the creating merchant open, and with none again (the A/B/A shows
// drift between phases).

// liveConsoles is how many live order feeds the A/B opens.
const liveConsoles = 100

// consoleCookie is the merchant console's session cookie (cmd/gateway).
const consoleCookie = "gw_console"

type consoleReport struct {
	Orders   *pair          `json:"orders_page,omitempty"`
	Overview *pair          `json:"overview_page_30d,omitempty"`
	CreateA  loadgen.Result `json:"create_no_console"`
	CreateB  loadgen.Result `json:"create_with_live_consoles"`
	CreateA2 loadgen.Result `json:"create_no_console_again"`
	Consoles int            `json:"live_consoles"`
	// Events is how many orders the open feeds received during B: the
	// fan-out worked. Each message carries a poll's changed orders of the
	// merchant, at most a page of them (the rest: a reload hint), so this
	// is far fewer than the creates times the feeds.
	Events int64 `json:"live_events_received"`
}

// runConsole measures the console pages of the listing merchant and the
// live page's A/B on a merchant of its own.
func (b consoleScenario) runConsole(ctx context.Context, gw *server, list account) error {
	cr := &consoleReport{Consoles: liveConsoles}
	b.rep.Console = cr
	sid, err := consoleSession(ctx, b.bench, list.AppID)
	if err != nil {
		return err
	}
	pages := []struct {
		name string
		path string
		dst  **pair
	}{
		{"console orders page", "/console/orders", &cr.Orders},
		{"console overview 30 days", "/console/?range=30d", &cr.Overview},
	}
	var errs []error
	for _, p := range pages {
		pr, err := b.consolePair(ctx, p.name, gw, withCookie(p.path, sid))
		*p.dst = pr
		errs = append(errs, err)
	}
	errs = append(errs, b.runLiveAB(ctx, gw, cr))
	return errors.Join(errs...)
}

// runLiveAB is createorder's max without, with and again without
// liveConsoles open feeds of the creating merchant.
func (b consoleScenario) runLiveAB(ctx context.Context, gw *server, cr *consoleReport) error {
	m, err := newMerchant(ctx, b.cfg, "bench-live")
	if err != nil {
		return err
	}
	sid, err := consoleSession(ctx, b.bench, m.AppID)
	if err != nil {
		return err
	}
	dur := b.consolePhase()
	n := b.cfg.PoolRate * int((dur+warmup(dur)).Seconds()+1)
	phase := func(name, prefix string) (loadgen.Result, error) {
		bodies := createBodies(m, ownCreate, prefix, n, nil)
		return b.closed(ctx, name, gw, createTarget(bodies), dur, checkCreate(nil))
	}
	if cr.CreateA, err = phase("createorder max, no console", "lva"); err != nil {
		return err
	}
	feeds, err := openFeeds(ctx, "http://"+gw.addr+"/console/orders/live", sid, liveConsoles)
	if err != nil {
		return err
	}
	cr.CreateB, err = phase(fmt.Sprintf("createorder max, %d live consoles", liveConsoles), "lvb")
	cr.Events = feeds.close()
	if err != nil {
		return err
	}
	if cr.Events == 0 {
		return errors.New("the live consoles received no event while orders were created")
	}
	cr.CreateA2, err = phase("createorder max, no console again", "lvc")
	return err
}

// consolePhase is the length of the console's phases: --console-phase, or
// the short phase.
func (b consoleScenario) consolePhase() time.Duration {
	if b.cfg.ConsolePhase > 0 {
		return b.cfg.ConsolePhase
	}
	return b.cfg.ShortPhase
}

// consolePair is runPair with the console's phase length: a closed-loop
// max, then an open loop at half of it.
func (b consoleScenario) consolePair(ctx context.Context, name string, gw *server, t loadgen.Target) (*pair, error) {
	// The pages' connections: a merchant's console users are a few people,
	// and the query node's fair gate admits a few reads per merchant at a
	// time, so 64 at once measure the gate's queue, not a page.
	cb, cfg := *b.bench, *b.cfg
	cfg.Concurrency = b.cfg.ConsoleConcurrency
	cb.cfg = &cfg
	b.bench = &cb
	pr := &pair{}
	var err error
	if pr.Max, err = b.closed(ctx, name+" max", gw, t, b.consolePhase(), checkConsolePage); err != nil {
		return pr, err
	}
	if pr.Max.Throughput == 0 {
		return pr, errors.New(name + ": nothing succeeded")
	}
	half, err := b.open(ctx, name+" half", gw, t, pr.Max.Throughput/2, b.consolePhase(), checkConsolePage)
	pr.Half = &half
	return pr, err
}

// consoleSession makes an owner of appid, as `gateway console-user add`
// and the setup page do (no TOTP: the merchant does not require it), and
// logs it in through access, the library the console's login page calls;
// it returns the session cookie's value.
func consoleSession(ctx context.Context, b *bench, appid string) (string, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := prometheus.NewRegistry()
	limiter, err := platform.NewLimiter(b.rdb, platform.LimiterConfig{}, reg, quiet)
	if err != nil {
		return "", err
	}
	accts, err := access.New(access.Defaults(), b.rdb, merchant.NewPasswordHasher(), limiter, reg, quiet)
	if err != nil {
		return "", err
	}
	email := "bench-" + appid + "@shop.example"
	const password = "bench console password"
	_, token, err := access.NewTeam(accts).Create(ctx, access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: appid,
		Email: email, Role: access.RoleOwner})
	if err != nil {
		return "", fmt.Errorf("console user: %w", err)
	}
	if _, _, err := accts.CompleteSetup(ctx, access.Setup{Realm: access.RealmMerchant, Token: token, Password: password, Source: "127.0.0.1"}); err != nil {
		return "", fmt.Errorf("console user setup: %w", err)
	}
	s, err := accts.Login(ctx, access.LoginRequest{Realm: access.RealmMerchant, Email: email, Password: password,
		IP: netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		return "", fmt.Errorf("console login: %w", err)
	}
	return s.ID, nil
}

// withCookie is a GET of path with the session cookie.
func withCookie(path, sid string) loadgen.TargetFunc {
	cookie := consoleCookie + "=" + sid
	return func(_ int, req *fasthttp.Request) bool {
		req.Header.SetMethod(fasthttp.MethodGet)
		req.SetRequestURI(path)
		req.Header.Set(fasthttp.HeaderCookie, cookie)
		return true
	}
}

// consolePageMark is in every page of the logged-in console (the nav),
// never in the login page a lost session would land on.
var consolePageMark = []byte(`class="nav"`)

func checkConsolePage(r *loadgen.Response) error {
	if r.Status != fasthttp.StatusOK {
		return fmt.Errorf("status %d", r.Status)
	}
	if !bytes.Contains(r.Body, consolePageMark) {
		return fmt.Errorf("not a logged-in console page: %.120s", r.Body)
	}
	return nil
}

// feeds are open event streams, counting the events they receive.
type feeds struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	events atomic.Int64
}

// openFeeds opens n event streams of url with the session cookie and
// waits until each has answered 200 with an event stream.
func openFeeds(ctx context.Context, url, sid string, n int) (*feeds, error) {
	fctx, cancel := context.WithCancel(ctx)
	f := &feeds{cancel: cancel}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}}
	ready := make(chan error, n)
	for range n {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.read(fctx, client, url, sid, ready)
		}()
	}
	for range n {
		if err := <-ready; err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

// read is one console's feed: it reports whether the stream opened, then
// counts the orders its messages carry until the run ends or the gateway
// ends the feed (after 5 minutes; a phase is shorter).
func (f *feeds) read(ctx context.Context, client *http.Client, url, sid string, ready chan<- error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		ready <- err
		return
	}
	req.Header.Set("Cookie", consoleCookie+"="+sid)
	req.Header.Set("Accept", "text/event-stream")
	res, err := client.Do(req)
	if err != nil {
		ready <- fmt.Errorf("live feed: %w", err)
		return
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		ready <- fmt.Errorf("live feed: status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
		return
	}
	ready <- nil
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 16<<10), 1<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
		var m struct {
			Orders []json.RawMessage `json:"orders"`
		}
		if ok && json.Unmarshal(data, &m) == nil {
			f.events.Add(int64(len(m.Orders)))
		}
	}
}

// close ends every feed and returns the events they received.
func (f *feeds) close() int64 {
	f.cancel()
	f.wg.Wait()
	return f.events.Load()
}
