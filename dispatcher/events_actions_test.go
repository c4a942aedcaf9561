package dispatcher

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

func TestEventReplaySince(t *testing.T) {
	e := newEvEnv(t)
	var up atomic.Bool
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		if up.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ep := e.endpoint(e.acct.AppID, rc.URL)
	d := e.startEvents(testConfig())
	ctx := context.Background()
	var ids []string
	for _, src := range []string{"o1", "o2", "o3"} {
		ev := event(t, events.OrderExpired, src)
		if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:"+src, []events.Endpoint{ep}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, DeliveryID(ev.ID, ep.ID))
	}
	testenv.Eventually(t, 10*time.Second, "dead-lettered", func() bool {
		for _, id := range ids {
			if e.evState(e.acct.AppID, id) != events.Dead {
				return false
			}
		}
		return true
	})
	ed := d.Events()
	cases := []struct {
		name  string
		since time.Time
		kind  platform.Kind
	}{
		{"before the endpoint was created", ep.Created.Add(-time.Second), platform.KindInvalidParameter},
		{"beyond the retention", time.Now().Add(-31 * 24 * time.Hour), platform.KindInvalidParameter},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ed.ReplaySince(ctx, e.acct.AppID, ep, tt.since); kindOf(err) != tt.kind {
				t.Fatalf("replay: %v, want %s", err, tt.kind)
			}
		})
	}
	up.Store(true)
	n, err := ed.ReplaySince(ctx, e.acct.AppID, ep, ep.Created)
	if err != nil || n != 3 {
		t.Fatalf("replayed %d, %v; want 3", n, err)
	}
	testenv.Eventually(t, 10*time.Second, "replayed deliveries delivered", func() bool {
		for _, id := range ids {
			if e.evState(e.acct.AppID, id) != events.Delivered {
				return false
			}
		}
		return true
	})
	// The replay is the same event: the same webhook-id and body.
	first := map[string]string{}
	for _, r := range rc.requests() {
		id := r.header.Get("webhook-id")
		if b, ok := first[id]; ok && b != r.body {
			t.Fatalf("event %s was sent with another body on replay", id)
		}
		first[id] = r.body
	}
}

func TestEventsOfAnotherMerchantAreNotFound(t *testing.T) {
	e := newEvEnv(t)
	rc := newReceiver(t, answer(http.StatusOK, ""))
	ep := e.endpoint(e.acct.AppID, rc.URL)
	d := e.startEvents(testConfig())
	ctx := context.Background()
	ev := event(t, events.OrderPaid, "o1")
	if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	id := DeliveryID(ev.ID, ep.ID)
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.evState(e.acct.AppID, id) == events.Delivered })
	// Merchant B on A's home shard too, so only the checks keep them apart.
	b := e.merchant()
	for schema.HomeShard(b) != schema.HomeShard(e.acct.AppID) {
		b = e.merchant()
	}
	ed := d.Events()
	cases := []struct {
		name string
		run  func() error
	}{
		{"read a delivery", func() error { _, err := ed.Delivery(ctx, b, id); return err }},
		{"list an endpoint's deliveries", func() error { _, _, err := ed.Deliveries(ctx, b, ep.ID, 0, 10); return err }},
		{"resend", func() error { return ed.Resend(ctx, b, id) }},
		{"replay", func() error { _, err := ed.ReplaySince(ctx, b, ep, ep.Created); return err }},
		{"test", func() error { _, err := ed.SendTest(ctx, b, ep); return err }},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if k := kindOf(tt.run()); k != platform.KindNotFound {
				t.Fatalf("merchant B got %q, want not_found", k)
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	if rc.count() != 1 {
		t.Fatalf("%d requests: merchant B's resend or replay sent A's event", rc.count())
	}
	// A sees its own.
	got, _, err := ed.Deliveries(ctx, e.acct.AppID, ep.ID, 0, 10)
	if err != nil || len(got) != 1 || got[0].ID != id || len(got[0].Attempts) != 1 {
		t.Fatalf("A's deliveries %+v, %v", got, err)
	}
}

func TestEventResendAndTest(t *testing.T) {
	e := newEvEnv(t)
	rc := newReceiver(t, answer(http.StatusAccepted, "thanks"))
	ep := e.endpoint(e.acct.AppID, rc.URL, events.OrderPaid)
	d := e.startEvents(testConfig())
	ctx := context.Background()
	ed := d.Events()
	got, err := ed.SendTest(ctx, e.acct.AppID, ep)
	if err != nil || got.Type != events.EndpointTest || len(got.Attempts) != 1 || got.Attempts[0].Status != 202 || got.Attempts[0].Answer != "thanks" {
		t.Fatalf("test delivery %+v, %v", got, err)
	}
	if err := ed.Resend(ctx, e.acct.AppID, got.ID); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "resent", func() bool { return rc.count() == 2 })
	r := rc.requests()
	if r[0].header.Get("webhook-id") != r[1].header.Get("webhook-id") || r[0].body != r[1].body {
		t.Fatal("a resend is the same event: same webhook-id, same body")
	}
}

// TestEventHistoryCap: past an endpoint's history cap the oldest ended
// delivery leaves its history and Redis.
func TestEventHistoryCap(t *testing.T) {
	e := newEvEnv(t)
	rc := newReceiver(t, answer(http.StatusOK, ""))
	ep := e.endpoint(e.acct.AppID, rc.URL)
	cfg := testConfig()
	cfg.EventHistoryCap = 2
	d := e.startEvents(cfg)
	ctx := context.Background()
	var ids []string
	for i, src := range []string{"o1", "o2", "o3"} {
		ev := event(t, events.OrderPaid, src)
		if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:"+src, []events.Endpoint{ep}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, DeliveryID(ev.ID, ep.ID))
		testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.evState(e.acct.AppID, ids[i]) == events.Delivered })
	}
	got, _, err := d.Events().Deliveries(ctx, e.acct.AppID, ep.ID, 0, 10)
	if err != nil || len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[1] {
		t.Fatalf("history %+v, %v: want the newest two, newest first", got, err)
	}
	sh := schema.HomeShard(e.acct.AppID)
	if n, _ := e.rdb.Exists(ctx, schema.EventDeliveryKey(sh, ids[0]), schema.EventLogKey(sh, ids[0])).Result(); n != 0 {
		t.Fatalf("the oldest delivery's %d keys are still in Redis", n)
	}
}
