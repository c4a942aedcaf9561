package dispatcher

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
)

func TestEventDeliveredSigned(t *testing.T) {
	e := newEvEnv(t)
	rc := newReceiver(t, answer(http.StatusNoContent, ""))
	ep := e.endpoint(e.acct.AppID, rc.URL)
	d := e.startEvents(testConfig())
	ctx := context.Background()
	ev := event(t, events.OrderExpired, "o1")
	if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	id := DeliveryID(ev.ID, ep.ID)
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.evState(e.acct.AppID, id) == events.Delivered })
	body, _ := ev.Body()
	r := rc.requests()[0]
	switch {
	case r.body != string(body):
		t.Fatalf("body %s, want the event's JSON %s", r.body, body)
	case r.contentType != "application/json":
		t.Fatalf("content type %q", r.contentType)
	case r.header.Get("webhook-id") != ev.ID:
		t.Fatalf("webhook-id %q, want %s", r.header.Get("webhook-id"), ev.ID)
	case !verify(r.header, r.body, ep.Secret):
		t.Fatalf("signature %q does not verify with the endpoint's secret", r.header.Get("webhook-signature"))
	}

	// During a rotation's overlap both secrets sign: a receiver with
	// either verifies.
	rot, err := e.eps.Rotate(ctx, e.acct.AppID, ep.ID, time.Hour, audit.Entry{At: time.Now(), ActorID: "dev", Realm: audit.RealmMerchant})
	if err != nil {
		t.Fatal(err)
	}
	ev2 := event(t, events.OrderExpired, "o2")
	if err := d.ScheduleEvent(ctx, e.acct.AppID, ev2, "order:o2", []events.Endpoint{rot}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "second delivered", func() bool { return rc.count() == 2 })
	r = rc.requests()[1]
	if !verify(r.header, r.body, ep.Secret) || !verify(r.header, r.body, rot.Secret) {
		t.Fatalf("during the overlap %q must verify with the old and the new secret", r.header.Get("webhook-signature"))
	}
	// Scheduling again changes nothing.
	if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if rc.count() != 2 {
		t.Fatalf("%d requests after scheduling a delivered event again, want 2", rc.count())
	}
}

func TestEventRetriedOn500EvenWithSuccess(t *testing.T) {
	e := newEvEnv(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte("success"))
			return
		}
		_, _ = w.Write([]byte("anything"))
	})
	ep := e.endpoint(e.acct.AppID, rc.URL)
	d := e.startEvents(testConfig())
	ev := event(t, events.OrderPaid, "o1")
	if err := d.ScheduleEvent(context.Background(), e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	id := DeliveryID(ev.ID, ep.ID)
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.evState(e.acct.AppID, id) == events.Delivered })
	got, err := d.Events().Delivery(context.Background(), e.acct.AppID, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Attempts) != 2 || got.Attempts[0].Status != 500 || got.Attempts[1].Status != 200 || got.Attempts[0].Answer != "success" {
		t.Fatalf("attempts %+v: want a failed 500 (answered \"success\") then a 200", got.Attempts)
	}
	if rc.requests()[0].header.Get("webhook-id") != rc.requests()[1].header.Get("webhook-id") {
		t.Fatal("the retry has another webhook-id")
	}
}

func TestEventOrderPerObject(t *testing.T) {
	e := newEvEnv(t)
	paid, refunded := event(t, events.OrderPaid, "o1"), event(t, events.OrderRefunded, "o1/rf1")
	firstPaid := paid.ID
	var paidFailed atomic.Bool
	var rc *receiver
	rc = newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("webhook-id") == firstPaid && paidFailed.CompareAndSwap(false, true) {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := e.endpoint(e.acct.AppID, rc.URL)
	cfg := testConfig()
	cfg.Schedule = []time.Duration{300 * time.Millisecond}
	d := e.startEvents(cfg)
	ctx := context.Background()
	other := event(t, events.OrderPaid, "o2")
	for _, s := range []struct {
		ev  events.Event
		obj string
	}{{paid, "order:o1"}, {refunded, "order:o1"}, {other, "order:o2"}} {
		if err := d.ScheduleEvent(ctx, e.acct.AppID, s.ev, s.obj, []events.Endpoint{ep}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 10*time.Second, "all delivered", func() bool {
		return e.evState(e.acct.AppID, DeliveryID(refunded.ID, ep.ID)) == events.Delivered
	})
	var seq []string
	for _, r := range rc.requests() {
		if id := r.header.Get("webhook-id"); id != other.ID {
			seq = append(seq, typeOf(r.body))
		}
	}
	want := []string{"order.paid", "order.paid", "order.refunded"}
	if len(seq) != 3 || seq[0] != want[0] || seq[1] != want[1] || seq[2] != want[2] {
		t.Fatalf("order o1's events arrived as %v, want %v (refunded only after paid ended)", seq, want)
	}
	// Another object is not held behind o1's retry: it arrived before
	// paid's second attempt.
	at := map[string][]int{}
	for i, r := range rc.requests() {
		at[r.header.Get("webhook-id")] = append(at[r.header.Get("webhook-id")], i)
	}
	if len(at[other.ID]) != 1 || len(at[paid.ID]) != 2 || at[other.ID][0] > at[paid.ID][1] {
		t.Fatalf("requests by event %v: order o2's must not wait for o1's retry", at)
	}
}

// TestEventRedirectNotFollowed: an endpoint that answers with a redirect
// (to our own network, say) has not acknowledged the event, and the
// redirect is never followed: the private address gets nothing, the
// attempt is a failure and the event is tried again at the endpoint.
func TestEventRedirectNotFollowed(t *testing.T) {
	e := newEvEnv(t)
	inner := newReceiver(t, func(int, http.ResponseWriter, *http.Request) {})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			http.Redirect(w, r, inner.URL+"/internal", http.StatusFound)
		}
	})
	ep := e.endpoint(e.acct.AppID, rc.URL)
	d := e.startEvents(testConfig())
	ev := event(t, events.OrderExpired, "o1")
	if err := d.ScheduleEvent(context.Background(), e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	id := DeliveryID(ev.ID, ep.ID)
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.evState(e.acct.AppID, id) == events.Delivered })
	got, err := d.Events().Delivery(context.Background(), e.acct.AppID, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Attempts) != 2 || got.Attempts[0].Status != http.StatusFound || inner.count() != 0 {
		t.Fatalf("attempts %+v, the redirect's target got %d: want a failed 302 not followed, then a 2xx", got.Attempts, inner.count())
	}
}
