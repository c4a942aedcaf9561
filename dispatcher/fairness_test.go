package dispatcher

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestHangingEndpointDoesNotDelayOthers: a merchant endpoint that never
// answers, with a time-out long enough to matter, holds its per-host slots
// and nothing else; 1,000 other orders' webhooks all arrive meanwhile.
func TestHangingEndpointDoesNotDelayOthers(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	var hangingNow, hangingMax atomic.Int32
	hanging := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		n := hangingNow.Add(1)
		for m := hangingMax.Load(); n > m && !hangingMax.CompareAndSwap(m, n); m = hangingMax.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		hangingNow.Add(-1)
		http.Error(w, "gave up", http.StatusServiceUnavailable)
	})
	fast := make([]*receiver, 4)
	for i := range fast {
		fast[i] = newReceiver(t, answer(200, "success"))
	}
	cfg := testConfig()
	cfg.Timeout = 30 * time.Second
	cfg.Concurrency = 32
	cfg.PerHost = 4
	e.start(cfg)
	t.Cleanup(func() { close(release) }) // runs first: lets the dispatcher stop

	// The hanging endpoint's webhooks are due first, and there are more of
	// them than the whole process has slots.
	for range 100 {
		e.pay(hanging.URL)
	}
	testenv.Eventually(t, 10*time.Second, "the hanging endpoint holds its slots", func() bool {
		return hangingNow.Load() == int32(cfg.PerHost)
	})

	start := time.Now()
	const others = 1000
	for i := range others {
		e.pay(fast[i%len(fast)].URL)
	}
	arrived := func() int {
		n := 0
		for _, rc := range fast {
			n += rc.count()
		}
		return n
	}
	testenv.Eventually(t, 15*time.Second, "every other merchant's webhook", func() bool { return arrived() == others })
	t.Logf("%d webhooks to other endpoints arrived %s after the first was paid, while one endpoint hung (time-out %s)",
		others, time.Since(start).Round(time.Millisecond), cfg.Timeout)
	if m := hangingMax.Load(); m > int32(cfg.PerHost) {
		t.Errorf("the hanging endpoint had %d attempts at once, limit %d", m, cfg.PerHost)
	}
}

// TestTwoDispatchersDeliverEachOrderOnce: two processes share the work
// and never send one delivery twice, at once or after a success.
func TestTwoDispatchersDeliverEachOrderOnce(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	calls, inflight := map[string]int{}, map[string]int{}
	overlap := false
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		id := r.PostForm.Get("paymentId")
		mu.Lock()
		calls[id]++
		inflight[id]++
		overlap = overlap || inflight[id] > 1
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		inflight[id]--
		mu.Unlock()
		_, _ = w.Write([]byte("success"))
	})
	a, b := testConfig(), testConfig()
	a.Consumer, b.Consumer = "a", "b"
	da := e.start(a)
	e.start(b)

	const n = 300
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.pay(rc.URL).ID
	}
	testenv.Eventually(t, 20*time.Second, "all delivered", func() bool {
		for _, id := range ids {
			if e.state(da, id) != StateDelivered {
				return false
			}
		}
		return true
	})
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if overlap {
		t.Error("one delivery was sent twice at once")
	}
	for _, id := range ids {
		if calls[id] != 1 {
			t.Errorf("%s sent %d times", id, calls[id])
		}
	}
}
