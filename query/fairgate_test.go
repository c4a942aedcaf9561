package query

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
)

// queued waits until appid has n waiters at the gate.
func queued(t *testing.T, g *FairGate, appid string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		got := len(g.queues[appid])
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d waiters, want %d", appid, got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFairGateTakesTurns: with one slot held, a flooding merchant queues
// five queries and then another merchant one; the other merchant's query
// is served second, not sixth (first come, first served would put it
// behind the whole flood).
func TestFairGateTakesTurns(t *testing.T) {
	g, err := NewFairGate(FairGateConfig{Concurrency: 1, MaxWait: time.Hour}, prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	held, err := g.Acquire(context.Background(), "flood")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	wait := func(appid string) {
		defer wg.Done()
		release, err := g.Acquire(context.Background(), appid)
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		order = append(order, appid)
		mu.Unlock()
		release()
	}
	for i := range 5 {
		wg.Add(1)
		go wait("flood")
		queued(t, g, "flood", i+1)
	}
	wg.Add(1)
	go wait("quiet")
	queued(t, g, "quiet", 1)
	held()
	wg.Wait()
	if len(order) != 6 || order[1] != "quiet" {
		t.Fatalf("served in the order %v, want quiet second", order)
	}
	if g.free != 1 || len(g.ring) != 0 || len(g.queues) != 0 {
		t.Fatalf("gate not back to idle: free %d ring %v queues %d", g.free, g.ring, len(g.queues))
	}
}

// TestFairGateBoundsQueues: a merchant's queue beyond PerMerchant is
// refused with 429 at once; a waiter that gives up leaves no trace.
func TestFairGateBoundsQueues(t *testing.T) {
	g, err := NewFairGate(FairGateConfig{Concurrency: 1, PerMerchant: 2, MaxWait: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	held, _ := g.Acquire(context.Background(), "a")
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			release, err := g.Acquire(ctx, "a")
			if err == nil {
				release()
			}
			errs <- err
		}()
	}
	queued(t, g, "a", 2)
	_, err = g.Acquire(context.Background(), "a")
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Kind != platform.KindRateLimited || pe.RetryAfter < time.Second {
		t.Fatalf("third waiter: %v, want rate_limited with a Retry-After", err)
	}
	cancel()
	for range 2 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled waiter: %v", err)
		}
	}
	held()
	if g.free != 1 || len(g.ring) != 0 || len(g.queues) != 0 {
		t.Fatalf("gate not back to idle: free %d ring %v queues %d", g.free, g.ring, len(g.queues))
	}
}

// TestFairGateCapsAMerchant: a merchant holding its cap of slots waits for
// its own next query even with slots free, and another merchant takes a
// free slot at once; the waiter is served when the merchant's first
// query ends. Without the cap the flood takes every slot.
func TestFairGateCapsAMerchant(t *testing.T) {
	g, err := NewFairGate(FairGateConfig{Concurrency: 4, PerMerchantInFlight: 1, MaxWait: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := g.Acquire(context.Background(), "flood")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan func(), 1)
	go func() {
		release, err := g.Acquire(context.Background(), "flood")
		if err != nil {
			t.Error(err)
		}
		served <- release
	}()
	queued(t, g, "flood", 1)
	quiet, err := g.Acquire(context.Background(), "quiet")
	if err != nil {
		t.Fatal(err)
	}
	quiet() // a slot handed on: still not to the flood at its cap
	g.mu.Lock()
	waiting, held := len(g.queues["flood"]), g.inflight["flood"]
	g.mu.Unlock()
	if waiting != 1 || held != 1 {
		t.Fatalf("the flood holds %d slots with %d waiting, want 1 held and its second query waiting", held, waiting)
	}
	first()
	second := <-served
	second()
	if g.free != 4 || len(g.ring) != 0 || len(g.queues) != 0 || len(g.inflight) != 0 {
		t.Fatalf("gate not back to idle: free %d ring %v queues %d inflight %v", g.free, g.ring, len(g.queues), g.inflight)
	}
}

// TestFairGateBoundsWait: waiters whose clients hung up without cancelling
// their context (fasthttp never does) fill a merchant's queue; they leave
// after MaxWait, refused with the reason — 429 when the merchant's own
// queries hold its share, 503 when other merchants' do — and the merchant's
// next query is queued again, not refused for a full queue. Without the
// bound the waiters never leave.
func TestFairGateBoundsWait(t *testing.T) {
	tests := []struct {
		name   string
		holder string // who holds the only slot
		want   platform.Kind
	}{
		{"behind its own queries", "a", platform.KindRateLimited},
		{"behind other merchants", "b", platform.KindUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewFairGate(FairGateConfig{Concurrency: 1, PerMerchant: 2, MaxWait: 20 * time.Millisecond}, nil)
			if err != nil {
				t.Fatal(err)
			}
			held, err := g.Acquire(context.Background(), tt.holder)
			if err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, 2)
			for range 2 {
				go func() {
					release, err := g.Acquire(context.Background(), "a")
					if err == nil {
						release()
					}
					errs <- err
				}()
			}
			for range 2 {
				select {
				case err := <-errs:
					var pe *platform.Error
					if !errors.As(err, &pe) || pe.Kind != tt.want || pe.RetryAfter != time.Second {
						t.Fatalf("abandoned waiter: %v, want %s with Retry-After 1s", err, tt.want)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("abandoned waiters still wait: no bound on the wait")
				}
			}
			queued(t, g, "a", 0)
			held()
			again, err := g.Acquire(context.Background(), "a")
			if err != nil {
				t.Fatalf("the merchant's next query: %v", err)
			}
			again()
			if g.free != 1 || len(g.ring) != 0 || len(g.queues) != 0 || len(g.inflight) != 0 {
				t.Fatalf("gate not back to idle: free %d ring %v queues %d inflight %v", g.free, g.ring, len(g.queues), g.inflight)
			}
		})
	}
}

// TestFairGateConfig: the in-flight cap defaults to a quarter of the slots, may
// not exceed them, and a negative wait is refused.
func TestFairGateConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     FairGateConfig
		wantCap int
		ok      bool
	}{
		{"defaults", FairGateConfig{}, 2, true},
		{"a quarter, at least 1", FairGateConfig{Concurrency: 2}, 1, true},
		{"a cap of its own", FairGateConfig{Concurrency: 8, PerMerchantInFlight: 2}, 2, true},
		{"cap over the slots", FairGateConfig{Concurrency: 2, PerMerchantInFlight: 3}, 0, false},
		{"negative wait", FairGateConfig{MaxWait: -time.Second}, 0, false},
		{"shared cap over the cap", FairGateConfig{PerMerchantInFlight: 2, SharedInFlight: 3}, 0, false},
		{"negative share window", FairGateConfig{ShareWindow: -time.Second}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg.withDefaults()
			err := cfg.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
			if tt.ok && (cfg.PerMerchantInFlight != tt.wantCap || cfg.MaxWait != 10*time.Second) {
				t.Fatalf("cap %d wait %v, want %d and 10s", cfg.PerMerchantInFlight, cfg.MaxWait, tt.wantCap)
			}
			if tt.ok && (cfg.SharedInFlight != max(1, tt.wantCap/2) || cfg.ShareWindow != time.Second) {
				t.Fatalf("shared cap %d window %v, want %d and 1s", cfg.SharedInFlight, cfg.ShareWindow, max(1, tt.wantCap/2))
			}
		})
	}
}

// TestFairGateSharesWhileAnotherReads: a merchant reading alone holds its
// full cap; once another merchant has read within the share window it
// holds the shared cap, even between the other's queries (a listing polled
// a few times a second is idle most of the time), and gets its full cap
// back once the other has been quiet for the window. Without the shared
// cap the flood's next query runs at once beside the other's.
func TestFairGateSharesWhileAnotherReads(t *testing.T) {
	g, err := NewFairGate(FairGateConfig{Concurrency: 8, PerMerchantInFlight: 2, MaxWait: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1_800_000_000, 0)
	var clockMu sync.Mutex
	g.now = func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return clock }
	tick := func(d time.Duration) { clockMu.Lock(); clock = clock.Add(d); clockMu.Unlock() }
	ctx := context.Background()
	acquire := func(appid string) func() {
		t.Helper()
		release, err := g.Acquire(ctx, appid)
		if err != nil {
			t.Fatal(err)
		}
		return release
	}
	served := make(chan func(), 2)
	background := func() {
		go func() {
			release, err := g.Acquire(ctx, "flood")
			if err != nil {
				t.Error(err)
			}
			served <- release
		}()
	}
	first, second := acquire("flood"), acquire("flood") // alone: its full cap of 2
	acquire("quiet")()                                  // one listing, done at once
	first()
	background()
	queued(t, g, "flood", 1) // one in flight is its shared cap now
	tick(500 * time.Millisecond)
	acquire("quiet")() // still polling: the flood stays at one
	tick(900 * time.Millisecond)
	acquire("other-flood-query-trigger")() // any arrival re-checks the waiters
	if n := g.held("flood"); n != 1 {
		t.Fatalf("the flood holds %d slots 0.9 s after the other's listing, want its shared cap of 1", n)
	}
	tick(1100 * time.Millisecond) // every other merchant quiet for over a window
	background()                  // its arrival hands the first waiter a slot, then waits itself
	for deadline := time.Now().Add(5 * time.Second); g.held("flood") != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the flood holds %d slots after the others went quiet, want its full cap of 2", g.held("flood"))
		}
	}
	queued(t, g, "flood", 1)
	second()
	(<-served)()
	(<-served)()
	if g.free != 8 || len(g.inflight) != 0 || len(g.queues) != 0 {
		t.Fatalf("gate not back to idle: free %d inflight %v queues %d", g.free, g.inflight, len(g.queues))
	}
}

// held is how many slots appid holds.
func (g *FairGate) held(appid string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inflight[appid]
}
