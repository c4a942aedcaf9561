package dispatcher

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
)

// BenchmarkEventsDrain measures endpoint events drained per second: b.N
// events of 100 merchants, each merchant with 3 endpoints on a loopback
// receiver of 32 ports (every event goes to all 3), scheduled before a
// dispatcher starts; timed from its start until the receiver has every
// delivery. The dispatcher runs the default configuration, with
// GATEWAY_WEBHOOK_CONCURRENCY and GATEWAY_WEBHOOK_PER_HOST applied as
// serve applies them. make bench-events runs it:
//
//	scripts/testenv.sh go test -run '^$' -bench EventsDrain -benchtime 20000x ./dispatcher
func BenchmarkEventsDrain(b *testing.B) {
	const merchants, perMerchant, ports = 100, 3, 32
	e := newEvEnvTB(b)
	rcv := newFastReceiver(b, ports)
	ctx := context.Background()
	var apps []string
	eps := map[string][]events.Endpoint{}
	for m := range merchants {
		appid := e.acct.AppID
		if m > 0 {
			appid = e.merchant()
		}
		apps = append(apps, appid)
		for k := range perMerchant {
			eps[appid] = append(eps[appid], e.endpoint(appid, rcv.url(m*perMerchant+k)))
		}
	}
	ed := e.deliveries(Defaults())
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range b.N {
		appid := apps[i%merchants]
		ev, err := events.New(events.OrderPaid, "bench:"+strconv.Itoa(i), time.Now(), map[string]int{"n": i})
		if err != nil {
			b.Fatal(err)
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := ed.ScheduleEvent(ctx, appid, ev, "order:"+strconv.Itoa(i), eps[appid]); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	cfg := Defaults()
	cfg.Bind(flag.NewFlagSet("bench", flag.ContinueOnError))
	cfg.AllowPrivate = true
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	want := b.N * perMerchant
	b.ResetTimer()
	start := time.Now()
	d := e.startEvents(cfg)
	testenv.Eventually(b, 10*time.Minute, "every event delivered", func() bool { return rcv.count() >= want })
	took := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/took.Seconds(), "events/s")
	b.ReportMetric(float64(want)/took.Seconds(), "deliveries/s")
	b.Logf("%d events to %d endpoints each (%d deliveries) in %s: %.0f events/s, %.0f deliveries/s (concurrency %d, per host %d, %d ports); mean attempt %s; %.0f attempts; %d repeats at the receiver",
		b.N, perMerchant, want, took.Round(time.Millisecond), float64(b.N)/took.Seconds(), float64(want)/took.Seconds(),
		cfg.Concurrency, cfg.PerHost, ports, meanAttempt(b, d), metricValue(b, d.reg, "gateway_webhook_event_attempts_total"), rcv.repeats())
}

// fastReceiver is a loopback endpoint that costs next to nothing: it
// counts each (webhook-id, path) once and answers 200.
type fastReceiver struct {
	mu    sync.Mutex
	seen  map[string]struct{}
	reps  int
	addrs []string
}

func newFastReceiver(tb testing.TB, ports int) *fastReceiver {
	tb.Helper()
	r := &fastReceiver{seen: map[string]struct{}{}}
	for range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		// Keep-alive connections live longer than the client keeps them
		// idle: a server closing one first fails the next attempt on it
		// ("closed before answering"), which is then retried 15 s later.
		srv := &fasthttp.Server{Handler: r.handle, Concurrency: 4096, IdleTimeout: 2 * time.Minute, CloseOnShutdown: true}
		go func() { _ = srv.Serve(ln) }()
		tb.Cleanup(func() { _ = srv.Shutdown() })
		r.addrs = append(r.addrs, ln.Addr().String())
	}
	return r
}

func (r *fastReceiver) handle(c *fasthttp.RequestCtx) {
	k := string(c.Request.Header.Peek("webhook-id")) + string(c.Path())
	r.mu.Lock()
	if _, ok := r.seen[k]; ok {
		r.reps++
	} else {
		r.seen[k] = struct{}{}
	}
	r.mu.Unlock()
	c.SetStatusCode(fasthttp.StatusOK)
}

// url is endpoint i's URL: ports in turn, a path of its own.
func (r *fastReceiver) url(i int) string {
	return fmt.Sprintf("http://%s/ep%d", r.addrs[i%len(r.addrs)], i)
}

func (r *fastReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *fastReceiver) repeats() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reps
}
