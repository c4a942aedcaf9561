package dispatcher

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// An endpoint delivery keeps its first attempt in its hash and only later
// ones in a log: what the doors read, and the attempts' numbers, are the
// same as with every attempt in the log.
func TestEventAttemptsFirstInHashThenLog(t *testing.T) {
	cases := []struct {
		name     string
		fail     int // answers 500 to the first fail attempts
		statuses []int
	}{
		{"acknowledged at once: no log", 0, []int{http.StatusNoContent}},
		{"acknowledged at the third: two in the log", 2, []int{500, 500, http.StatusNoContent}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEvEnv(t)
			rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				if n <= c.fail {
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			})
			ep := e.endpoint(e.acct.AppID, rc.URL)
			d := e.startEvents(testConfig())
			ctx := context.Background()
			ev := event(t, events.OrderPaid, "o1")
			if err := d.ScheduleEvent(ctx, e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
				t.Fatal(err)
			}
			id := DeliveryID(ev.ID, ep.ID)
			testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.evState(e.acct.AppID, id) == events.Delivered })
			got, err := e.deliveries(testConfig()).Delivery(ctx, e.acct.AppID, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Attempts) != len(c.statuses) {
				t.Fatalf("%d attempts read, want %d: %+v", len(got.Attempts), len(c.statuses), got.Attempts)
			}
			for i, a := range got.Attempts {
				if a.Status != c.statuses[i] {
					t.Fatalf("attempt %d status %d, want %d", i+1, a.Status, c.statuses[i])
				}
			}
			sh := schema.HomeShard(e.acct.AppID)
			log, err := e.rdb.LRange(ctx, schema.EventLogKey(sh, id), 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(log) != len(c.statuses)-1 {
				t.Fatalf("%d records in the log, want %d (the first is in the hash)", len(log), len(c.statuses)-1)
			}
			for i, raw := range log {
				var r schema.WebhookAttempt
				if err := json.Unmarshal([]byte(raw), &r); err != nil {
					t.Fatal(err)
				}
				if r.Attempt != i+2 {
					t.Fatalf("log record %d is attempt %d, want %d", i, r.Attempt, i+2)
				}
			}
			if n, _ := e.rdb.Exists(ctx, schema.EventFIFOKey(sh, ep.ID, "order:o1")).Result(); n != 0 {
				t.Fatal("a FIFO list was left for an object with one event")
			}
			if n, _ := e.rdb.HLen(ctx, schema.EventHeadsKey(sh, ep.ID)).Result(); n != 0 {
				t.Fatal("the ended delivery is still its object's head")
			}
		})
	}
}

// A head whose hash is gone (expired) does not hold the deliveries
// scheduled after it about the same object for ever.
func TestEventGoneHeadHandsOn(t *testing.T) {
	e := newEvEnv(t)
	rc := newReceiver(t, answer(http.StatusNoContent, ""))
	ep := e.endpoint(e.acct.AppID, rc.URL)
	ed := e.deliveries(testConfig())
	ctx := context.Background()
	ev1, ev2 := event(t, events.OrderPaid, "o1"), event(t, events.OrderRefunded, "o1r")
	if err := ed.ScheduleEvent(ctx, e.acct.AppID, ev1, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	sh := schema.HomeShard(e.acct.AppID)
	if err := e.rdb.Del(ctx, schema.EventDeliveryKey(sh, DeliveryID(ev1.ID, ep.ID))).Err(); err != nil {
		t.Fatal(err)
	}
	if err := ed.ScheduleEvent(ctx, e.acct.AppID, ev2, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	e.startEvents(testConfig())
	id2 := DeliveryID(ev2.ID, ep.ID)
	testenv.Eventually(t, 10*time.Second, "the second delivered", func() bool { return e.evState(e.acct.AppID, id2) == events.Delivered })
}

// The claim script names a merchant's endpoints hash from the delivery
// hash's prefix (claim_one in lib.lua): the two must stay side by side.
func TestEndpointsKeyBesideDeliveries(t *testing.T) {
	for _, appid := range []string{"m1", "app-42", "bench-ev-7"} {
		sh := schema.HomeShard(appid)
		derived := strings.TrimSuffix(schema.EventDeliveryKey(sh, ""), "o:") + "ep:" + appid
		if derived != schema.EndpointsKey(appid) {
			t.Fatalf("endpoints key %q, the claim script derives %q", schema.EndpointsKey(appid), derived)
		}
	}
}

// A scheduled endpoint delivery carries its record count from the start,
// so its first claim numbers the attempt 1 from the hash and never counts
// a log: a claim does no LLEN (here a stray list would be counted).
func TestEventFirstClaimCountsNoLog(t *testing.T) {
	e := newEvEnv(t)
	ep := e.endpoint(e.acct.AppID, "http://127.0.0.1:9/hook")
	ctx := context.Background()
	ev := event(t, events.OrderPaid, "o1")
	if err := e.deliveries(testConfig()).ScheduleEvent(ctx, e.acct.AppID, ev, "order:o1", []events.Endpoint{ep}); err != nil {
		t.Fatal(err)
	}
	sh := schema.HomeShard(e.acct.AppID)
	id := DeliveryID(ev.ID, ep.ID)
	if err := e.rdb.RPush(ctx, schema.EventLogKey(sh, id), "stray", "stray").Err(); err != nil {
		t.Fatal(err)
	}
	jobs, err := newStore(e.rdb, testConfig()).claimAll(ctx, []claimAsk{{shard: sh, want: 1, perHost: 1}}, "t:")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].id != id {
		t.Fatalf("claimed %+v, want %s", jobs, id)
	}
	if jobs[0].seq != 1 {
		t.Fatalf("first attempt numbered %d, want 1", jobs[0].seq)
	}
}
