package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// runDelay measures create-to-listed: creates open-loop at half of
// createorder's maximum against a gateway with every role, while polling
// ClickHouse for the merchant's orders. An order's delay is from the create
// answer to the first poll that sees it (so it includes up to one poll
// interval, and the projector's flush interval).
//
// The load must be steady: with every role on the same cores the gateway
// may serve less than half the command-only maximum, and then creates queue.
// A run that served under 97% of its rate is noted and the phase runs again
// at 85% of what was served, which is the figure reported.
func (b projectorScenario) runDelay(ctx context.Context, gw *server) error {
	rate := b.createMax / 2
	if rate <= 0 {
		rate = float64(b.cfg.HookRate)
	}
	dr, err := b.delayAt(ctx, gw, "create-to-listed", "bench-delay", rate)
	if err != nil {
		return err
	}
	if served := dr.Creates.Throughput; served < steadyShare*rate {
		b.note("create-to-listed at %.0f creates/s was not steady: the all-roles gateway served %.0f/s (create p99 %.0f ms); measured again at %.0f/s",
			rate, served, dr.Creates.Latency.P99, steadyRetry*served)
		time.Sleep(b.cfg.ReadyAfter)
		if dr, err = b.delayAt(ctx, gw, "create-to-listed steady", "bench-delay-steady", steadyRetry*served); err != nil {
			return err
		}
	}
	b.rep.Delay = dr
	return nil
}

// A create-to-listed run is steady when it served steadyShare of its rate;
// otherwise it runs again at steadyRetry of what it served.
const (
	steadyShare = 0.97
	steadyRetry = 0.85
)

// delayAt is one create-to-listed run at rate, for a merchant of its own.
func (b projectorScenario) delayAt(ctx context.Context, gw *server, phase, merchant string, rate float64) (*delayReport, error) {
	m, err := newMerchant(ctx, b.cfg, merchant)
	if err != nil {
		return nil, err
	}
	n := int(rate*(b.cfg.ShortPhase+warmup(b.cfg.ShortPhase)).Seconds()) + 1
	bodies := createBodies(m, ownCreate, "delay", n, nil)
	w := newListWatch()
	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	pollDone := make(chan error, 1)
	go func() { pollDone <- b.pollListed(pollCtx, m.AppID, w) }()
	check := func(r *loadgen.Response) error {
		id, err := paymentID(r.Body)
		if err != nil {
			return fmt.Errorf("status %d: %w", r.Status, err)
		}
		w.created(id, r.Done)
		return nil
	}
	dr := &delayReport{Rate: rate, PollEvry: b.cfg.PollEvery.String()}
	dr.Creates, err = b.open(ctx, phase, gw, createTarget(bodies), rate, b.cfg.ShortPhase, check)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(30 * time.Second); w.unseenCount() > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	stopPoll()
	if err := <-pollDone; err != nil {
		return nil, err
	}
	h, missing := w.delays()
	dr.Delay, dr.Missing = h.Summary(), missing
	b.logf("create-to-listed at %.0f/s: p50 %.1f ms p99 %.1f ms max %.1f ms, %d never listed", rate, dr.Delay.P50, dr.Delay.P99, dr.Delay.Max, missing)
	return dr, nil
}

// listWatch pairs each order's create answer with its first sighting in
// ClickHouse; either may come first.
type listWatch struct {
	mu      sync.Mutex
	answers map[string]time.Time
	seen    map[string]time.Time
	unseen  map[string]time.Time // answered, not yet seen: id -> creation time
}

func newListWatch() *listWatch {
	return &listWatch{answers: map[string]time.Time{}, seen: map[string]time.Time{}, unseen: map[string]time.Time{}}
}

func (w *listWatch) created(id string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.answers[id] = at
	if _, ok := w.seen[id]; !ok {
		t, _ := schema.OrderIDTime(id)
		w.unseen[id] = t
	}
}

func (w *listWatch) sighted(ids []string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		if _, ok := w.seen[id]; !ok {
			w.seen[id] = at
			delete(w.unseen, id)
		}
	}
}

func (w *listWatch) unseenCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.unseen)
}

// since is how far back a poll must look: to the oldest order answered and
// not yet seen, or a moment ago when there is none.
func (w *listWatch) since(now time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	oldest := now.Add(-2 * time.Second)
	for _, t := range w.unseen {
		if t.Before(oldest) {
			oldest = t
		}
	}
	return oldest.Add(-time.Second).UTC().Truncate(time.Second)
}

func (w *listWatch) delays() (*loadgen.Histogram, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var h loadgen.Histogram
	missing := 0
	for id, at := range w.answers {
		if s, ok := w.seen[id]; ok {
			h.Record(s.Sub(at))
		} else {
			missing++
		}
	}
	return &h, missing
}

// pollListed asks ClickHouse every PollEvery which of the merchant's orders
// since the oldest unseen one are there, on its own connection.
func (b projectorScenario) pollListed(ctx context.Context, appid string, w *listWatch) error {
	ch, err := platform.OpenClickHouse(b.cfg.chDSN())
	if err != nil {
		return err
	}
	defer ch.Close()
	t := time.NewTicker(b.cfg.PollEvery)
	defer t.Stop()
	var ids []string
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		rows, err := ch.Query(ctx, "SELECT id FROM orders WHERE appid = ? AND created_at >= ?", appid, w.since(time.Now()))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("poll listed orders: %w", err)
		}
		at := time.Now()
		ids = ids[:0]
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err == nil {
				ids = append(ids, id)
			}
		}
		rows.Close()
		w.sighted(ids, at)
	}
}
