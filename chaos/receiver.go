package chaos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Mode is how the merchant endpoint behaves; scenarios switch it.
type Mode string

const (
	ModeNormal Mode = "normal" // answers "success" at once
	ModeHang   Mode = "hang"   // reads the request and never answers until the mode changes
	ModeReset  Mode = "reset"  // resets the connection (RST) without an answer
	ModeSlow   Mode = "slow"   // answers "success" after slowDelay, inside the dispatcher's time-out
)

// slowDelay is the slow endpoint's answer time: slow, but well inside the
// dispatcher's 10 s time-out, so every slow answer must count.
const slowDelay = 3 * time.Second

// Receiver is the merchants' webhook endpoint. For every paymentId it
// counts the deliveries it acknowledged, and those that arrived when Redis
// already recorded that order's webhook as delivered: a delivery after a
// recorded success is a broken promise even if the merchant deduplicates.
type Receiver struct {
	rdb  redis.UniversalClient
	srv  *http.Server
	addr string

	mu      sync.Mutex
	mode    Mode
	release chan struct{} // closed when a hang ends
	seen    map[string]*Webhook
	calls   map[Mode]int
}

// NewReceiver listens on a loopback port.
func NewReceiver(rdb redis.UniversalClient) (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webhook receiver: %w", err)
	}
	r := &Receiver{rdb: rdb, addr: ln.Addr().String(), mode: ModeNormal, release: make(chan struct{}),
		seen: map[string]*Webhook{}, calls: map[Mode]int{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// URL is the notify_url the load gives its orders.
func (r *Receiver) URL() string { return "http://" + r.addr + "/hook" }

// SetMode switches the behaviour; leaving hang releases every held request
// (unanswered: the dispatcher has long given up on them).
func (r *Receiver) SetMode(m Mode) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode == ModeHang && m != ModeHang {
		close(r.release)
		r.release = make(chan struct{})
	}
	r.mode = m
}

func (r *Receiver) handle(w http.ResponseWriter, req *http.Request) {
	id := req.FormValue("paymentId")
	r.mu.Lock()
	mode, release := r.mode, r.release
	r.calls[mode]++
	r.mu.Unlock()
	switch mode {
	case ModeHang:
		select {
		case <-release:
		case <-req.Context().Done():
		}
		return
	case ModeReset:
		reset(w)
		return
	case ModeSlow:
		select {
		case <-time.After(slowDelay):
		case <-req.Context().Done():
			return
		}
	}
	late := r.recordedSuccess(req.Context(), id)
	r.mu.Lock()
	w0 := r.seen[id]
	if w0 == nil {
		w0 = &Webhook{}
		r.seen[id] = w0
	}
	w0.Acked++
	if late {
		w0.AfterSuccess++
	}
	r.mu.Unlock()
	_, _ = w.Write([]byte("success"))
}

// recordedSuccess reads the order's delivery state as the request arrives.
// An unreadable state (Redis down) counts as not recorded: the check can
// miss a late delivery then, never invent one.
func (r *Receiver) recordedSuccess(ctx context.Context, id string) bool {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return false
	}
	st, err := r.rdb.HGet(ctx, schema.WebhookKey(shard, id), "st").Result()
	return err == nil && st == "delivered"
}

// reset closes the connection with SO_LINGER 0: the dispatcher sees a
// connection reset, not an answer.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// Seen is a copy of what the receiver recorded, by paymentId.
func (r *Receiver) Seen() map[string]Webhook {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]Webhook, len(r.seen))
	for id, w := range r.seen {
		out[id] = *w
	}
	return out
}

// Calls is how many requests arrived in each mode.
func (r *Receiver) Calls() map[Mode]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[Mode]int{}
	for m, n := range r.calls {
		out[m] = n
	}
	return out
}

// Close stops the receiver.
func (r *Receiver) Close() {
	r.SetMode(ModeNormal)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := r.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		_ = r.srv.Close()
	}
}
