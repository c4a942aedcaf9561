package loadgen

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// serve runs handler on a loopback port for the test's lifetime.
func serve(t *testing.T, handler fasthttp.RequestHandler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: handler}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return ln.Addr().String()
}

func TestClosedLoopCountsAndChecks(t *testing.T) {
	var seen atomic.Int64
	addr := serve(t, func(c *fasthttp.RequestCtx) {
		seen.Add(1)
		if string(c.Request.Body()) == "bad" {
			c.SetStatusCode(400)
		}
		c.SetBodyString(`{"code":0}`)
	})
	var bodies Bodies
	for i := range 100_000 {
		if i%10 == 9 {
			bodies.Add([]byte("bad"))
		} else {
			bodies.Add([]byte("good"))
		}
	}
	res, err := Closed(context.Background(), &Post{Path: "/x", ContentType: "text/plain", Bodies: bodies},
		Options{Addr: addr, Concurrency: 4, Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK == 0 || res.Failed == 0 || res.Errors["status 400"] != res.Failed {
		t.Fatalf("ok %d failed %d errors %v", res.OK, res.Failed, res.Errors)
	}
	if got := float64(res.Failed) / float64(res.OK+res.Failed); got < 0.05 || got > 0.15 {
		t.Fatalf("failed share %.2f, want about 0.1", got)
	}
	if res.Latency.Count != res.OK+res.Failed || res.Throughput <= 0 {
		t.Fatalf("latency count %d for %d requests, throughput %.0f", res.Latency.Count, res.OK+res.Failed, res.Throughput)
	}
}

func TestClosedLoopEndsWhenRequestsRunOut(t *testing.T) {
	addr := serve(t, func(c *fasthttp.RequestCtx) {})
	var bodies Bodies
	for range 50 {
		bodies.Add([]byte("x"))
	}
	res, err := Closed(context.Background(), &Post{Path: "/", Bodies: bodies},
		Options{Addr: addr, Concurrency: 2, Duration: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted || res.OK != 50 || res.Seconds >= 5 {
		t.Fatalf("exhausted %v ok %d seconds %.2f", res.Exhausted, res.OK, res.Seconds)
	}
}

// TestOpenLoopChargesStalls is coordinated omission: one 300 ms stall of
// a server behind a single connection delays every request due during it.
// Measured from the send time, only one request would look slow; measured
// from the due time, about 30% of a 1 s run at 500/s do.
func TestOpenLoopChargesStalls(t *testing.T) {
	var n atomic.Int64
	addr := serve(t, func(c *fasthttp.RequestCtx) {
		if n.Add(1) == 100 {
			time.Sleep(300 * time.Millisecond)
		}
	})
	res, err := Open(context.Background(), &Get{URIs: []string{"/"}}, 500,
		Options{Addr: addr, Concurrency: 1, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 500 || res.Unsent != 0 {
		t.Fatalf("ok %d unsent %d, want 500 and 0", res.OK, res.Unsent)
	}
	if res.Latency.P90 < 50 || res.Latency.Max < 250 {
		t.Fatalf("p90 %.1f ms, max %.1f ms: the stall was not charged to the requests behind it", res.Latency.P90, res.Latency.Max)
	}
	if res.SendLag == nil || res.SendLag.Max < 250 {
		t.Fatalf("send lag %+v does not show the wait", res.SendLag)
	}
}

func TestOpenLoopKeepsItsRate(t *testing.T) {
	addr := serve(t, func(c *fasthttp.RequestCtx) {})
	start := time.Now()
	res, err := Open(context.Background(), &Get{URIs: []string{"/a", "/b"}}, 1000,
		Options{Addr: addr, Concurrency: 8, Duration: 500 * time.Millisecond, Warmup: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 500 {
		t.Fatalf("ok %d, want 500 measured requests", res.OK)
	}
	if took := time.Since(start); took < 550*time.Millisecond || took > 2*time.Second {
		t.Fatalf("a 0.6 s run took %v", took)
	}
}
