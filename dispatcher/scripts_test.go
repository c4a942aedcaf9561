package dispatcher

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// The delivery scripts (schedule, claim, finish, resend) at the store's
// edge, on the real Redis and with no dispatcher running: each outcome a
// script can answer, and what it leaves behind.

const (
	hostA = "http://a.example/hook"
	hostB = "http://b.example/hook"
)

// TestScheduleScript: the first paid event schedules the delivery, due now;
// the same event again (a redelivered stream entry) changes nothing.
func TestScheduleScript(t *testing.T) {
	e := newScriptEnv(t, time.Second)
	start := time.Now().UnixMilli()
	id := e.schedule(hostA)
	first := e.state(id, hostA)
	if first.hash["st"] != StatePending || first.hash["n"] != "0" || first.hash["host"] != hostOf(hostA) ||
		!first.queued || first.due < start-1000 || first.due > time.Now().UnixMilli()+1000 || !first.indexed {
		t.Fatalf("scheduled delivery %+v", first)
	}
	ttl, err := e.rdb.PTTL(context.Background(), schema.WebhookKey(scriptShard, id)).Result()
	if floor := e.cfg.lease() + pendingFloor; err != nil || ttl < floor-5*time.Second || ttl > floor {
		t.Fatalf("delivery ttl %v (%v), want about %v: the order's hour, but at least the floor", ttl, err, floor)
	}

	o, err := e.rdb.HGetAll(context.Background(), schema.OrderKey(scriptShard, id)).Result()
	if err != nil {
		t.Fatal(err)
	}
	order, err := schema.OrderFromFields(o)
	if err != nil {
		t.Fatal(err)
	}
	added, errs := e.s.addAll(context.Background(), []delivery{{shard: scriptShard, id: id, url: hostB, appid: order.AppID,
		params: callbackParams(&order), paid: order.CompletedAt}})
	if errs[0] != nil || added[0] {
		t.Fatalf("second schedule: added %v, %v", added[0], errs[0])
	}
	again := e.state(id, hostA)
	if !maps.Equal(again.hash, first.hash) || again.due != first.due || !again.queued {
		t.Fatalf("a second schedule changed the delivery: %+v, then %+v", first, again)
	}
	if b := e.state(id, hostB); b.queued || b.indexed {
		t.Fatalf("a second schedule queued the order for another host: %+v", b)
	}
}

// TestClaimScript: a claim leases due deliveries up to the per-host limit
// and the free slots the caller reports; a leased delivery is nobody else's
// until its lease ends, and then it is claimed again under a new token.
func TestClaimScript(t *testing.T) {
	const lease = 600 * time.Millisecond // the subtests run within one
	e := newScriptEnv(t, lease)
	a1, a2, a3, b1 := e.schedule(hostA), e.schedule(hostA), e.schedule(hostA), e.schedule(hostB)

	before := time.Now().UnixMilli()
	first := e.claim("p1:", 10, 2, nil)
	if len(first) != 3 {
		t.Fatalf("first claim took %d, want two of host A and one of host B", len(first))
	}
	if _, ok := first[b1]; !ok {
		t.Fatalf("host B's delivery was not claimed: %v", first)
	}
	// The three of host A fall due in the same millisecond, so which two the
	// claim takes is the queue's order; the one left is what a free slot gets.
	var left []string
	for _, id := range []string{a1, a2, a3} {
		if _, ok := first[id]; !ok {
			left = append(left, id)
		}
	}
	if len(left) != 1 {
		t.Fatalf("the first claim left %v of host A, want exactly one (limit 2)", left)
	}
	for id, j := range first {
		st := e.state(id, j.url)
		if j.token != "p1:"+id || st.hash["lease"] != j.token || !st.queued ||
			st.due < before+lease.Milliseconds() || st.due > time.Now().UnixMilli()+lease.Milliseconds() ||
			j.seq != 1 || j.made != 0 || j.manual != "" || j.appid != e.acct.AppID || j.form == "" || j.broken != "" {
			t.Fatalf("claimed %s: job %+v, state %+v", id, j, st)
		}
	}

	tests := []struct {
		name string
		busy map[string]int
		want []string
	}{
		{"host A has no free slot", map[string]int{hostOf(hostA): 0}, nil},
		{"host A has one free slot", map[string]int{hostOf(hostA): 1}, left},
		{"everything due is leased", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.claim("p2:", 10, 2, tt.busy)
			if len(got) != len(tt.want) {
				t.Fatalf("claimed %v, want %v", got, tt.want)
			}
			for _, id := range tt.want {
				if _, ok := got[id]; !ok {
					t.Fatalf("claimed %v, want %v", got, tt.want)
				}
			}
		})
	}

	time.Sleep(lease + 100*time.Millisecond)
	again := e.claim("p3:", 10, 10, nil)
	for _, id := range []string{a1, a2, a3, b1} {
		j, ok := again[id]
		if !ok || j.token != "p3:"+id || e.state(id, j.url).hash["lease"] != j.token {
			t.Fatalf("after the leases ended, %s: claimed %v, job %+v", id, ok, j)
		}
	}
	if n, err := e.rdb.ZCard(context.Background(), schema.WebhookHostsKey(scriptShard)).Result(); err != nil || n != 2 {
		t.Fatalf("hosts index holds %d hosts (%v), want 2", n, err)
	}
}

// TestFinishScript: what recording an attempt does, for each way an
// attempt can end and each state its delivery can be in by then.
func TestFinishScript(t *testing.T) {
	const lease = 200 * time.Millisecond
	// takeOver lets the lease of j run out and another process claim it.
	takeOver := func(e *scriptEnv, j job) job {
		e.t.Helper()
		time.Sleep(lease + 50*time.Millisecond)
		return e.claimOne("other:", j.id)
	}
	tests := []struct {
		name string
		// run takes the claimed first attempt to the attempt under test,
		// records it and returns the outcome.
		run     func(e *scriptEnv, j job) string
		outcome string
		st      string // delivery state after, "" when it is gone
		n       string // automatic attempts made
		queued  bool
		dead    bool
		logged  int64
		man     string
	}{
		{"acknowledged", func(e *scriptEnv, j job) string { return e.record(j, true, -1) },
			"delivered", StateDelivered, "1", false, false, 1, ""},
		{"failed with retries left", func(e *scriptEnv, j job) string { return e.record(j, false, time.Minute) },
			"retry", StatePending, "1", true, false, 1, ""},
		{"failed with the schedule used up", func(e *scriptEnv, j job) string { return e.record(j, false, -1) },
			"dead", StateDead, "1", false, true, 1, ""},
		{"failed after its lease was taken over", func(e *scriptEnv, j job) string {
			takeOver(e, j)
			return e.record(j, false, time.Minute)
		}, "stale", StatePending, "0", true, false, 1, ""},
		{"acknowledged after its lease was taken over", func(e *scriptEnv, j job) string {
			takeOver(e, j)
			return e.record(j, true, -1)
		}, "delivered", StateDelivered, "0", false, false, 1, ""},
		{"the new holder fails after the old one's success", func(e *scriptEnv, j job) string {
			k := takeOver(e, j)
			if out := e.record(j, true, -1); out != "delivered" {
				e.t.Fatalf("late acknowledgement: %s", out)
			}
			return e.record(k, false, time.Minute)
		}, "stale", StateDelivered, "0", false, false, 2, ""},
		{"the delivery expired meanwhile", func(e *scriptEnv, j job) string {
			if err := e.rdb.Del(context.Background(), schema.WebhookKey(scriptShard, j.id)).Err(); err != nil {
				e.t.Fatal(err)
			}
			return e.record(j, true, -1)
		}, "gone", "", "", true, false, 0, ""},
		{"failed resend of a dead letter", func(e *scriptEnv, j job) string {
			if out := e.record(j, false, -1); out != "dead" {
				e.t.Fatalf("first attempt: %s", out)
			}
			return e.record(e.resendAndClaim(j.id, StateDead), false, -1)
		}, "manual_failed", StateDead, "1", false, true, 2, ""},
		{"acknowledged resend of a dead letter", func(e *scriptEnv, j job) string {
			if out := e.record(j, false, -1); out != "dead" {
				e.t.Fatalf("first attempt: %s", out)
			}
			return e.record(e.resendAndClaim(j.id, StateDead), true, -1)
		}, "delivered", StateDelivered, "1", false, false, 2, ""},
		{"failed resend of a delivered order", func(e *scriptEnv, j job) string {
			if out := e.record(j, true, -1); out != "delivered" {
				e.t.Fatalf("first attempt: %s", out)
			}
			return e.record(e.resendAndClaim(j.id, StateDelivered), false, time.Minute)
		}, "manual_failed", StateDelivered, "1", false, false, 2, ""},
		{"failed resend of a pending delivery", func(e *scriptEnv, j job) string {
			if out := e.record(j, false, time.Minute); out != "retry" {
				e.t.Fatalf("first attempt: %s", out)
			}
			return e.record(e.resendAndClaim(j.id, "pending"), false, time.Minute)
		}, "retry", StatePending, "2", true, false, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newScriptEnv(t, lease)
			id := e.schedule(hostA)
			start := time.Now().UnixMilli()
			out := tt.run(e, e.claimOne("first:", id))
			st := e.state(id, hostA)
			if out != tt.outcome || st.hash["st"] != tt.st || st.hash["n"] != tt.n || st.queued != tt.queued ||
				st.dead != tt.dead || st.logged != tt.logged || st.hash["man"] != tt.man {
				t.Fatalf("outcome %s, state %+v; want %s, st %q, n %q, queued %v, dead %v, %d logged, man %q",
					out, st, tt.outcome, tt.st, tt.n, tt.queued, tt.dead, tt.logged, tt.man)
			}
			if tt.outcome == "stale" && tt.st == StatePending && st.hash["lease"] != "other:"+id {
				t.Fatalf("a stale failure took the lease of the new holder: %v", st.hash)
			}
			if tt.outcome == "retry" && (st.hash["lease"] != "" || st.due < start+time.Minute.Milliseconds()-1000) {
				t.Fatalf("a retry must drop the lease and fall due a minute later: %+v", st)
			}
			if (tt.st == StateDelivered || tt.st == StateDead) && st.hash["lease"]+st.hash["due"] != "" {
				t.Fatalf("a finished delivery keeps a lease or due time: %v", st.hash)
			}
			if st.indexed != st.queued {
				t.Fatalf("hosts index %v, queue %v", st.indexed, st.queued)
			}
		})
	}
}

// TestFinishKeepsTheLatestAttempts: the log keeps LogCap attempts, the
// newest.
func TestFinishKeepsTheLatestAttempts(t *testing.T) {
	e := newScriptEnv(t, time.Second)
	e.s.cfg.LogCap = 2
	id := e.schedule(hostA)
	for i := range 3 {
		j := e.claimOne("p:", id)
		if j.seq != i+1 {
			t.Fatalf("attempt %d claimed with seq %d", i+1, j.seq)
		}
		if out := e.record(j, false, 0); out != "retry" {
			t.Fatalf("attempt %d: %s", i+1, out)
		}
	}
	log, err := e.s.attempts(context.Background(), id, "")
	if err != nil || len(log) != 2 || log[0].Attempt != 2 || log[1].Attempt != 3 {
		t.Fatalf("log %+v, %v; want attempts 2 and 3", log, err)
	}
}

// TestResendScript: a resend of each state a delivery can be in.
func TestResendScript(t *testing.T) {
	const lease = 500 * time.Millisecond // "in flight" resends within one
	tests := []struct {
		name string
		// prepare takes the scheduled delivery to the state under test.
		prepare func(e *scriptEnv, id string)
		out     string // "none" when it has no delivery
		st      string // after
		man     string
		dueNow  bool
	}{
		{"no delivery", func(e *scriptEnv, id string) {
			if err := e.rdb.Del(context.Background(), schema.WebhookKey(scriptShard, id)).Err(); err != nil {
				e.t.Fatal(err)
			}
		}, "none", "", "", false},
		{"pending, waiting for a retry", func(e *scriptEnv, id string) {
			e.record(e.claimOne("p:", id), false, time.Hour)
		}, "queued", StatePending, "pending", true},
		{"pending, resend already queued", func(e *scriptEnv, id string) {
			e.record(e.claimOne("p:", id), false, time.Hour)
			if out, err := e.s.requeueAudited(context.Background(), "", id, "", nil); err != nil || out != "queued" {
				e.t.Fatalf("first resend: %q, %v", out, err)
			}
		}, "already_queued", StatePending, "pending", true},
		{"pending, attempt in flight", func(e *scriptEnv, id string) {
			e.claimOne("p:", id)
		}, "in_flight", StatePending, "", false},
		{"pending, lease of a dead process ran out", func(e *scriptEnv, id string) {
			e.claimOne("p:", id)
			time.Sleep(lease + 50*time.Millisecond)
		}, "queued", StatePending, "pending", true},
		{"delivered", func(e *scriptEnv, id string) {
			e.record(e.claimOne("p:", id), true, -1)
		}, "queued", StatePending, StateDelivered, true},
		{"dead letter", func(e *scriptEnv, id string) {
			e.record(e.claimOne("p:", id), false, -1)
		}, "queued", StatePending, StateDead, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newScriptEnv(t, lease)
			id := e.schedule(hostA)
			tt.prepare(e, id)
			before := e.state(id, hostA)
			out, err := e.s.requeueAudited(context.Background(), "", id, "", nil)
			now := time.Now().UnixMilli()
			if tt.out == "none" {
				if !errors.Is(err, ErrNoDelivery) {
					t.Fatalf("resend without a delivery: %q, %v", out, err)
				}
				// requeue finds no host and stops; the script answers
				// none by itself when the delivery goes in between.
				q := schema.WebhookQueueKey(scriptShard, hostOf(hostA))
				keys := []string{schema.WebhookKey(scriptShard, id), q, schema.WebhookHostsKey(scriptShard)}
				if out, err := e.s.resend.Run(context.Background(), e.rdb, keys, id, hostOf(hostA)).Text(); err != nil || out != "none" {
					t.Fatalf("resend script without a delivery: %q, %v", out, err)
				}
				if st := e.state(id, hostA); len(st.hash) != 0 {
					t.Fatalf("a resend without a delivery wrote %v", st.hash)
				}
				return
			}
			st := e.state(id, hostA)
			if err != nil || out != tt.out || st.hash["st"] != tt.st || st.hash["man"] != tt.man || !st.queued || !st.indexed {
				t.Fatalf("resend: %q, %v; state %+v; want %q, st %q, man %q, queued", out, err, st, tt.out, tt.st, tt.man)
			}
			if tt.dueNow && st.due > now {
				t.Fatalf("resent delivery due at %d, after now (%d)", st.due, now)
			}
			if !tt.dueNow && (st.due != before.due || !maps.Equal(st.hash, before.hash)) {
				t.Fatalf("a resend of an attempt in flight changed the delivery: %+v, then %+v", before, st)
			}
			if tt.out == "queued" {
				if j := e.claimOne("r:", id); j.manual != tt.man {
					t.Fatalf("resent job marked %q, want %q", j.manual, tt.man)
				}
			}
		})
	}
}
