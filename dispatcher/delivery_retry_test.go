package dispatcher

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func TestRetriesFollowScheduleAndStopAtSuccess(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n < 3 {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("success"))
	})
	cfg := testConfig()
	cfg.Schedule = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	d := e.start(cfg)
	o := e.pay(rc.URL)

	testenv.Eventually(t, 10*time.Second, "third attempt", func() bool { return e.state(d, o.ID) == StateDelivered })
	time.Sleep(time.Second) // past when a fourth and fifth attempt would come
	reqs := rc.requests()
	if len(reqs) != 3 {
		t.Fatalf("receiver called %d times, want 3", len(reqs))
	}
	for i, min := range []time.Duration{160 * time.Millisecond, 320 * time.Millisecond} { // delay -20%
		if gap := reqs[i+1].at.Sub(reqs[i].at); gap < min {
			t.Errorf("retry %d came %s after the attempt before, want at least %s", i+1, gap, min)
		}
	}
	log, err := d.Log(context.Background(), o.ID)
	if err != nil || len(log) != 3 {
		t.Fatalf("log %+v, %v", log, err)
	}
	for i, a := range log {
		wantStatus, wantOK := 503, false
		if i == 2 {
			wantStatus, wantOK = 200, true
		}
		if a.Attempt != i+1 || a.Status != wantStatus || a.Success != wantOK || a.Manual {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	if !strings.HasPrefix(log[0].Body, "try later") {
		t.Errorf("body %q", log[0].Body)
	}
	if st, _ := d.State(context.Background(), o.ID); st.Automatic != 3 || st.InFlight || !st.NextDue.IsZero() {
		t.Errorf("delivery %+v, want 3 automatic attempts, nothing in flight or due", st)
	}
	if got := metricValue(t, d.reg, "gateway_webhook_retries_scheduled_total"); got != 2 {
		t.Errorf("retries scheduled %v, want 2", got)
	}
}

func TestDeadLetterThenResend(t *testing.T) {
	e := newEnv(t)
	var ok atomic.Bool
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		if ok.Load() {
			_, _ = w.Write([]byte("success"))
			return
		}
		http.Error(w, strings.Repeat("x", 1000), http.StatusInternalServerError)
	})
	d := e.start(testConfig())
	ctx := context.Background()
	o := e.pay(rc.URL)
	shard, _ := schema.ParseOrderID(o.ID)
	inDead := func() bool {
		_, err := e.rdb.ZScore(ctx, schema.WebhookDeadKey(shard), o.ID).Result()
		return err == nil
	}

	testenv.Eventually(t, 10*time.Second, "dead-lettered", func() bool { return e.state(d, o.ID) == StateDead })
	// The metric is counted once the finishing script has answered, just
	// after the state it wrote can be read.
	testenv.Eventually(t, 5*time.Second, "dead letter counted", func() bool {
		return metricValue(t, d.reg, "gateway_webhook_dead_letters_total") == 1
	})
	if rc.count() != 3 || !inDead() || metricValue(t, d.reg, "gateway_webhook_dead_letters_total") != 1 {
		t.Fatalf("calls %d, in dead set %v, dead letters %v", rc.count(), inDead(), metricValue(t, d.reg, "gateway_webhook_dead_letters_total"))
	}
	log, _ := d.Log(ctx, o.ID)
	if len(log[0].Body) != schema.WebhookBodyKept {
		t.Errorf("kept %d bytes of the body, want %d", len(log[0].Body), schema.WebhookBodyKept)
	}

	// A resend of a dead letter is one attempt; failing, it stays dead.
	resendAndWait(t, e, d, o.ID, rc, 4)
	if st := e.state(d, o.ID); st != StateDead || !inDead() {
		t.Fatalf("after a failed resend: state %s, in dead set %v", st, inDead())
	}
	// Acknowledged, it is delivered and leaves the dead set.
	ok.Store(true)
	resendAndWait(t, e, d, o.ID, rc, 5)
	if st := e.state(d, o.ID); st != StateDelivered || inDead() {
		t.Fatalf("after a good resend: state %s, in dead set %v", st, inDead())
	}
	// A delivered order can be sent once more on request.
	resendAndWait(t, e, d, o.ID, rc, 6)
	time.Sleep(300 * time.Millisecond)
	if rc.count() != 6 || e.state(d, o.ID) != StateDelivered {
		t.Fatalf("calls %d, state %s", rc.count(), e.state(d, o.ID))
	}
	log, _ = d.Log(ctx, o.ID)
	for i, a := range log {
		if a.Attempt != i+1 || a.Manual != (i >= 3) || a.Success != (i >= 4) {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	if err := d.operatorResend(ctx, schema.NewOrderID(time.Now(), 1), ""); !errors.Is(err, ErrNoDelivery) {
		t.Errorf("resend of an unknown order: %v", err)
	}
}

// resendAndWait resends id and waits until the receiver has had calls calls
// and the attempt is recorded.
func resendAndWait(t *testing.T, e *env, d *running, id string, rc *receiver, calls int) {
	t.Helper()
	if err := d.operatorResend(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "resent attempt recorded", func() bool {
		log, _ := d.Log(context.Background(), id)
		return rc.count() == calls && len(log) == calls && e.state(d, id) != StatePending
	})
}

// TestUnreadableDeliveryRunsDownItsSchedule: a delivery whose stored
// callback is corrupt is never sent, but its failures are recorded and it
// is dead-lettered instead of being claimed again forever.
func TestUnreadableDeliveryRunsDownItsSchedule(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	cfg := testConfig()
	o := e.paidOrder(rc.URL)
	shard, _ := schema.ParseOrderID(o.ID)
	ctx := context.Background()
	if _, errs := newStore(e.rdb, cfg).addAll(ctx, []delivery{{shard: shard, id: o.ID, url: o.NotifyURL, appid: o.AppID,
		params: callbackParams(o), paid: o.CompletedAt}}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	e.rdb.HSet(ctx, schema.WebhookKey(shard, o.ID), "p", "{not json")
	d := e.start(cfg)
	testenv.Eventually(t, 10*time.Second, "dead-lettered", func() bool { return e.state(d, o.ID) == StateDead })
	log, _ := d.Log(ctx, o.ID)
	if rc.count() != 0 || len(log) != 3 || !strings.Contains(log[0].Error, "cannot be read") {
		t.Fatalf("calls %d, log %+v", rc.count(), log)
	}
}
