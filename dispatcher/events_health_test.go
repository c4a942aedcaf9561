package dispatcher

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestEndpointDisabledAfterFailing: an endpoint whose every attempt fails
// for EndpointDisableAfter is disabled as "failing", an operators'
// exception is raised, the merchant's other endpoint is told
// (endpoint.disabled), and what it had queued is dead-lettered.
func TestEndpointDisabledAfterFailing(t *testing.T) {
	e := newEvEnv(t)
	failing := newReceiver(t, answer(http.StatusInternalServerError, "down"))
	other := newReceiver(t, answer(http.StatusOK, ""))
	bad := e.endpoint(e.acct.AppID, failing.URL)
	e.endpoint(e.acct.AppID, other.URL, events.EndpointDisabled)
	cfg := testConfig()
	cfg.Schedule = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond,
		50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, time.Hour}
	cfg.EndpointDisableAfter = 200 * time.Millisecond
	d := e.startEvents(cfg)
	ctx := context.Background()
	first, queued := event(t, events.OrderPaid, "o1"), event(t, events.OrderRefunded, "o1/rf1")
	for _, ev := range []events.Event{first, queued} {
		if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:o1", []events.Endpoint{bad}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 10*time.Second, "disabled", func() bool {
		ep, err := e.eps.Get(ctx, e.acct.AppID, bad.ID)
		return err == nil && !ep.Enabled && ep.DisabledWhy == "failing"
	})
	sh := schema.HomeShard(e.acct.AppID)
	testenv.Eventually(t, 5*time.Second, "exception raised", func() bool {
		return e.rdb.ZScore(ctx, schema.EndpointExceptionsKey(sh), e.acct.AppID+" "+bad.ID).Err() == nil
	})
	var x EndpointException
	raw, _ := e.rdb.HGet(ctx, schema.EndpointExceptionKey(sh), e.acct.AppID+" "+bad.ID).Result()
	if err := json.Unmarshal([]byte(raw), &x); err != nil || x.URL != bad.URL || x.FailingAt.IsZero() {
		t.Fatalf("exception %q: %v", raw, err)
	}
	testenv.Eventually(t, 5*time.Second, "the other endpoint told", func() bool { return other.count() == 1 })
	if typ := typeOf(other.requests()[0].body); typ != string(events.EndpointDisabled) {
		t.Fatalf("the other endpoint got %s", typ)
	}
	// The endpoint's queue is dead-lettered after the others are told:
	// endpoint.disabled can reach them first.
	ed := d.Events()
	for _, ev := range []events.Event{first, queued} {
		testenv.Eventually(t, 5*time.Second, string(ev.Type)+" dead-lettered", func() bool {
			got, err := ed.Delivery(ctx, e.acct.AppID, DeliveryID(ev.ID, bad.ID))
			return err == nil && got.State == events.Dead
		})
	}
	got, _ := ed.Delivery(ctx, e.acct.AppID, DeliveryID(queued.ID, bad.ID))
	if got.Reason != whyDisabled || len(got.Attempts) != 0 {
		t.Fatalf("the queued delivery: reason %q, %d attempts; want %q and none", got.Reason, len(got.Attempts), whyDisabled)
	}
	if n := metricValue(t, d.reg, "gateway_webhook_endpoints_disabled_total"); n != 1 {
		t.Fatalf("endpoints disabled metric %v", n)
	}

	// Enabled again, it starts its count anew: its failures before that
	// do not disable it at its next failure.
	on := true
	again, err := e.eps.Update(ctx, e.acct.AppID, bad.ID, events.Change{Enabled: &on}, who())
	if err != nil {
		t.Fatal(err)
	}
	next := event(t, events.OrderPaid, "o2")
	if err := d.ScheduleEvent(ctx, e.acct.AppID, next, "order:o2", []events.Endpoint{again}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "a failed attempt after enabling", func() bool {
		got, err := ed.Delivery(ctx, e.acct.AppID, DeliveryID(next.ID, bad.ID))
		return err == nil && len(got.Attempts) > 0
	})
	since, err := e.rdb.HGet(ctx, schema.EventHealthKey(e.acct.AppID), bad.ID).Int64()
	if err != nil || since < again.Updated.UnixMilli() {
		t.Fatalf("failing since %d (%v), want at or after it was enabled again (%d)", since, err, again.Updated.UnixMilli())
	}
}

// TestSlowEndpointHoldsAtMostPerHost: a receiver that does not answer
// holds at most PerHost attempts of its endpoint however many of its
// objects are due.
func TestSlowEndpointHoldsAtMostPerHost(t *testing.T) {
	e := newEvEnv(t)
	release := make(chan struct{})
	var now, most atomic.Int32
	slow := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		now.Add(-1)
		w.WriteHeader(http.StatusOK)
	})
	fast := newReceiver(t, answer(http.StatusOK, ""))
	ep := e.endpoint(e.acct.AppID, slow.URL)
	quick := e.endpoint(e.acct.AppID, fast.URL)
	cfg := testConfig()
	cfg.Timeout = 30 * time.Second
	cfg.PerHost = 2
	d := e.startEvents(cfg)
	t.Cleanup(func() { close(release) })
	ctx := context.Background()
	for i := range 20 {
		ev := event(t, events.OrderPaid, "slow"+string(rune('a'+i)))
		if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:"+ev.ID, []events.Endpoint{ep}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 10*time.Second, "the slow endpoint holds its slots", func() bool { return now.Load() == 2 })
	// Other work is not held: the fast endpoint's events arrive while the
	// slow one holds its slots, and the slow one never gets a third.
	for i := range 20 {
		ev := event(t, events.OrderPaid, "fast"+string(rune('a'+i)))
		if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:"+ev.ID, []events.Endpoint{quick}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 10*time.Second, "the fast endpoint's events delivered", func() bool { return fast.count() == 20 })
	if m := most.Load(); m != int32(cfg.PerHost) {
		t.Fatalf("the slow endpoint had %d attempts at once, want PerHost %d", m, cfg.PerHost)
	}
}

// TestEventKilledMidAttempt: a dispatcher killed -9 while its attempt
// waits for the answer leaves a lease; once it ends, another dispatcher
// sends the same event again, with the same webhook-id and body.
func TestEventKilledMidAttempt(t *testing.T) {
	e := newEvEnv(t)
	first := make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			close(first)
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := e.endpoint(e.acct.AppID, rc.URL)
	ev := event(t, events.OrderPaid, "o1")
	ed := e.deliveries(testConfig())
	if err := ed.ScheduleEvent(context.Background(), e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	a := startHelper(t, e.env, "a")
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("the first attempt never arrived")
	}
	a.kill()
	b := startHelper(t, e.env, "b")
	id := DeliveryID(ev.ID, ep.ID)
	testenv.Eventually(t, 20*time.Second, "delivered by the restarted dispatcher", func() bool {
		return e.evState(e.acct.AppID, id) == events.Delivered
	})
	b.kill()
	r := rc.requests()
	if len(r) != 2 || r[0].header.Get("webhook-id") != ev.ID || r[1].header.Get("webhook-id") != ev.ID || r[0].body != r[1].body {
		t.Fatalf("%d requests; want the killed attempt and its replacement, both webhook-id %s with one body", len(r), ev.ID)
	}
}
