package main

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// receiver is a merchant's webhook endpoint that costs nothing: it notes
// when each paymentId first arrives and answers "success". It listens on
// several loopback ports because the dispatcher bounds attempts in flight
// per destination host:port, as it should for real merchants; the ports
// stand for several merchants' servers.
type receiver struct {
	mu    sync.Mutex
	got   map[string]time.Time
	dups  int
	first time.Time
	last  time.Time
	srvs  []*fasthttp.Server
	addrs []string
}

func newReceiver(ports int) (*receiver, error) {
	r := &receiver{got: map[string]time.Time{}}
	for range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			r.close()
			return nil, fmt.Errorf("webhook receiver: %w", err)
		}
		// IdleTimeout: Shutdown waits for keep-alive connections, which
		// the dispatcher's client would otherwise hold open for 90 s.
		srv := &fasthttp.Server{Handler: r.handle, Concurrency: 4096, IdleTimeout: time.Second, ReadTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		r.srvs = append(r.srvs, srv)
		r.addrs = append(r.addrs, ln.Addr().String())
	}
	return r, nil
}

func (r *receiver) handle(c *fasthttp.RequestCtx) {
	now := time.Now()
	id := string(c.PostArgs().Peek("paymentId"))
	r.mu.Lock()
	if _, ok := r.got[id]; ok {
		r.dups++
	} else {
		r.got[id] = now
	}
	if r.first.IsZero() {
		r.first = now
	}
	r.last = now
	r.mu.Unlock()
	c.SetBodyString("success")
}

// url is the notify_url of order i, spread over the ports.
func (r *receiver) url(i int) string { return "http://" + r.addrs[i%len(r.addrs)] + "/hook" }

// count is how many of ids have arrived, and the first and last arrival
// among them.
func (r *receiver) count(ids []string) (n int, first, last time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if t, ok := r.got[id]; ok {
			n++
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
	}
	return n, first, last
}

func (r *receiver) arrival(id string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.got[id]
	return t, ok
}

func (r *receiver) duplicates() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dups
}

func (r *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, s := range r.srvs {
		_ = s.ShutdownWithContext(ctx)
	}
}
