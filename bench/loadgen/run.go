package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Options describe a run against one server.
type Options struct {
	// Addr is the server's host:port. Keep it on 127.0.0.1: this is a
	// benchmark of our own servers, never of someone else's.
	Addr string
	// Concurrency is the number of connections: the workers of a closed
	// loop, the most requests in flight of an open loop.
	Concurrency int
	// Duration is how long requests are issued (after Warmup).
	Duration time.Duration
	// Warmup is a first stretch whose requests are sent but not recorded,
	// so connection set-up and cold caches do not count.
	Warmup time.Duration
	// Timeout bounds one request; a request past it counts as an error.
	Timeout time.Duration
	// OnResponse judges a completed request: a non-nil error counts it as
	// failed, under the error's text. Nil accepts any 2xx status. It is
	// called from many goroutines at once.
	OnResponse func(r *Response) error
}

func (o *Options) defaults() error {
	if o.Addr == "" || o.Concurrency < 1 || o.Duration <= 0 {
		return errors.New("loadgen: Addr, Concurrency and Duration are required")
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return nil
}

// Result is what a run measured.
type Result struct {
	Mode        string  `json:"mode"` // "closed" or "open"
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"target_rate,omitempty"` // open loop: requests/s asked for
	Seconds     float64 `json:"seconds"`               // the measured window
	OK          uint64  `json:"ok"`
	Failed      uint64  `json:"failed"`
	// Unsent counts open-loop requests that were due but never sent because
	// the run hit its hard deadline: the server fell too far behind.
	Unsent     uint64            `json:"unsent,omitempty"`
	Exhausted  bool              `json:"exhausted,omitempty"` // the target ran out of requests
	Errors     map[string]uint64 `json:"errors,omitempty"`
	Throughput float64           `json:"throughput"` // successful requests per second
	Latency    Summary           `json:"latency"`
	// SendLag is, in an open loop, how late the generator itself sent each
	// request after its intended time: what the generator adds to Latency.
	SendLag *Summary `json:"send_lag,omitempty"`
}

// String is a one-line account for logs.
func (r *Result) String() string {
	s := fmt.Sprintf("%s c=%d: %.0f req/s ok=%d failed=%d p50=%.2fms p99=%.2fms p99.9=%.2fms max=%.1fms",
		r.Mode, r.Concurrency, r.Throughput, r.OK, r.Failed, r.Latency.P50, r.Latency.P99, r.Latency.P999, r.Latency.Max)
	if r.Mode == "open" {
		s += fmt.Sprintf(" (rate %.0f/s, unsent %d)", r.Rate, r.Unsent)
	}
	if len(r.Errors) > 0 {
		s += fmt.Sprintf(" errors=%v", r.Errors)
	}
	return s
}

// maxErrorKinds bounds the error table: a run that fails every request in
// a new way must not grow it without end.
const maxErrorKinds = 20

// worker is one connection's loop state; each has its own histogram and
// counters, merged after the run.
type worker struct {
	hist   Histogram
	lag    Histogram
	ok     uint64
	failed uint64
	errors map[string]uint64
}

func (w *worker) fail(kind string) {
	w.failed++
	if _, ok := w.errors[kind]; ok || len(w.errors) < maxErrorKinds {
		w.errors[kind]++
	} else {
		w.errors["other"]++
	}
}

// do sends one request and judges it: "" when it succeeded, else the kind
// of failure. The caller counts it, or not during warm-up.
func do(c *fasthttp.HostClient, o *Options, req *fasthttp.Request, resp *fasthttp.Response, r *Response) string {
	if len(req.Host()) == 0 {
		req.SetHost(o.Addr)
	}
	err := c.DoTimeout(req, resp, o.Timeout)
	r.Done = time.Now()
	r.Status, r.Body = 0, nil
	if err != nil {
		return transportError(err)
	}
	r.Status, r.Body = resp.StatusCode(), resp.Body()
	if o.OnResponse != nil {
		if err := o.OnResponse(r); err != nil {
			return err.Error()
		}
	} else if r.Status < 200 || r.Status > 299 {
		return fmt.Sprintf("status %d", r.Status)
	}
	return ""
}

// count records a measured request.
func (w *worker) count(failure string, latency time.Duration) {
	w.hist.Record(latency)
	if failure == "" {
		w.ok++
	} else {
		w.fail(failure)
	}
}

func transportError(err error) string {
	switch {
	case errors.Is(err, fasthttp.ErrTimeout):
		return "timeout"
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		return "no free connections"
	}
	return "transport: " + err.Error()
}

func newClient(o *Options) *fasthttp.HostClient {
	return &fasthttp.HostClient{
		Addr:                          o.Addr,
		MaxConns:                      o.Concurrency,
		MaxConnWaitTimeout:            o.Timeout,
		MaxIdleConnDuration:           time.Minute,
		ReadTimeout:                   o.Timeout,
		WriteTimeout:                  o.Timeout,
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
	}
}

// merge folds the workers into a Result.
func merge(ws []*worker, r *Result, withLag bool) {
	var hist, lag Histogram
	for _, w := range ws {
		hist.Merge(&w.hist)
		lag.Merge(&w.lag)
		r.OK += w.ok
		r.Failed += w.failed
		for k, v := range w.errors {
			if r.Errors == nil {
				r.Errors = map[string]uint64{}
			}
			r.Errors[k] += v
		}
	}
	r.Latency = hist.Summary()
	if withLag {
		s := lag.Summary()
		r.SendLag = &s
	}
	if r.Seconds > 0 {
		r.Throughput = float64(r.OK) / r.Seconds
	}
}

// runWorkers starts n workers running body and waits for all of them.
func runWorkers(n int, body func(w *worker, req *fasthttp.Request, resp *fasthttp.Response)) []*worker {
	ws := make([]*worker, n)
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = &worker{errors: map[string]uint64{}}
		wg.Go(func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			body(ws[i], req, resp)
		})
	}
	wg.Wait()
	return ws
}

// Closed runs a closed loop: Concurrency workers, each sending its next
// request as soon as the last one is answered, for Warmup+Duration. It
// measures the most the server sustains at that concurrency; latency is
// from each request's actual send. Requests that complete inside the
// measured window are counted and recorded.
func Closed(ctx context.Context, t Target, o Options) (Result, error) {
	if err := o.defaults(); err != nil {
		return Result{}, err
	}
	client := newClient(&o)
	defer client.CloseIdleConnections()
	var next atomic.Int64
	var exhausted atomic.Bool
	begin := time.Now()
	from, end := begin.Add(o.Warmup), begin.Add(o.Warmup+o.Duration)
	ws := runWorkers(o.Concurrency, func(w *worker, req *fasthttp.Request, resp *fasthttp.Response) {
		r := Response{}
		for ctx.Err() == nil && time.Now().Before(end) {
			i := int(next.Add(1) - 1)
			req.Reset()
			if !t.Fill(i, req) {
				exhausted.Store(true)
				return
			}
			r.Index, r.Start = i, time.Now()
			failure := do(client, &o, req, resp, &r)
			if r.Start.Before(from) || r.Done.After(end) {
				continue // warm-up, or finished after the window closed
			}
			w.count(failure, r.Done.Sub(r.Start))
		}
	})
	res := Result{Mode: "closed", Concurrency: o.Concurrency, Seconds: o.Duration.Seconds(), Exhausted: exhausted.Load()}
	if res.Exhausted {
		res.Seconds = min(o.Duration, max(time.Since(from), time.Millisecond)).Seconds()
	}
	merge(ws, &res, false)
	return res, ctx.Err()
}

// Open runs an open loop: request i is due at start + i/rate whatever the
// server does, for Duration, with at most Concurrency in flight. Latency is
// from the due time, so time a request spent waiting for a free
// connection, or for the generator, counts against the server as it would
// against a real client. Requests still unsent at a hard deadline
// (Duration plus as much again, at least 10 s) are counted as Unsent.
func Open(ctx context.Context, t Target, rate float64, o Options) (Result, error) {
	if err := o.defaults(); err != nil {
		return Result{}, err
	}
	if rate <= 0 {
		return Result{}, errors.New("loadgen: open loop needs a rate above 0")
	}
	client := newClient(&o)
	defer client.CloseIdleConnections()
	total := int64(rate * o.Duration.Seconds())
	interval := float64(time.Second) / rate
	// Warm-up requests go first at the same rate and are not recorded.
	warm := int64(rate * o.Warmup.Seconds())
	begin := time.Now().Add(5 * time.Millisecond)
	deadline := begin.Add(o.Warmup + o.Duration + max(o.Duration, 10*time.Second))
	var next, unsent atomic.Int64
	var exhausted atomic.Bool
	var lastDone atomic.Int64
	ws := runWorkers(o.Concurrency, func(w *worker, req *fasthttp.Request, resp *fasthttp.Response) {
		r := Response{}
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		for {
			i := next.Add(1) - 1
			if i >= warm+total {
				return
			}
			due := begin.Add(time.Duration(float64(i) * interval))
			if d := time.Until(due); d > 0 {
				timer.Reset(d)
				select {
				case <-ctx.Done():
				case <-timer.C:
				}
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				unsent.Add(1)
				continue // count the rest as unsent, quickly
			}
			req.Reset()
			if !t.Fill(int(i), req) {
				exhausted.Store(true)
				return
			}
			sent := time.Now()
			r.Index, r.Start = int(i), due
			failure := do(client, &o, req, resp, &r)
			if i < warm {
				continue
			}
			w.lag.Record(sent.Sub(due))
			w.count(failure, r.Done.Sub(due))
			storeMax(&lastDone, r.Done.UnixNano())
		}
	})
	res := Result{Mode: "open", Concurrency: o.Concurrency, Rate: rate, Unsent: uint64(unsent.Load()), Exhausted: exhausted.Load()}
	// The window runs from the first measured due time to the last answer,
	// so a server that falls behind shows a throughput below the rate.
	from := begin.Add(time.Duration(float64(warm) * interval))
	res.Seconds = max(o.Duration, time.Unix(0, lastDone.Load()).Sub(from)).Seconds()
	merge(ws, &res, true)
	return res, ctx.Err()
}

// storeMax raises a to v unless it is already higher.
func storeMax(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if cur >= v || a.CompareAndSwap(cur, v) {
			return
		}
	}
}
