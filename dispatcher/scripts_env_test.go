package dispatcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// scriptShard holds every delivery of these tests, so one claim sees them all.
const scriptShard = schema.Shard(5)

// scriptEnv drives one test's deliveries through the store directly.
type scriptEnv struct {
	*env
	s   *store
	cfg Config
}

// newScriptEnv has leases of lease, so that a test can outlive one.
func newScriptEnv(t *testing.T, lease time.Duration) *scriptEnv {
	t.Helper()
	cfg := testConfig()
	cfg.Timeout, cfg.LeaseMargin = lease/2, lease-lease/2
	e := newEnv(t)
	return &scriptEnv{env: e, s: newStore(e.rdb, cfg), cfg: cfg}
}

// schedule stores a paid order notifying url and schedules its delivery.
func (e *scriptEnv) schedule(url string) string {
	e.t.Helper()
	o := e.paidOrder(url)
	o.ID = schema.NewOrderID(o.CreatedAt, scriptShard)
	e.publish(o, schema.EventPaid)
	added, errs := e.s.addAll(context.Background(), []delivery{{shard: scriptShard, id: o.ID, url: url, appid: o.AppID,
		params: callbackParams(o), paid: o.CompletedAt}})
	if errs[0] != nil || !added[0] {
		e.t.Fatalf("schedule %s: added %v, %v", o.ID, added[0], errs[0])
	}
	return o.ID
}

// claim leases what is due, as one claim round of one process would.
func (e *scriptEnv) claim(prefix string, want, perHost int, busy map[string]int) map[string]job {
	e.t.Helper()
	jobs, err := e.s.claimAll(context.Background(), []claimAsk{{shard: scriptShard, want: want, perHost: perHost, busy: busy}}, prefix)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]job{}
	for _, j := range jobs {
		if _, dup := out[j.id]; dup {
			e.t.Fatalf("one claim returned %s twice", j.id)
		}
		out[j.id] = j
	}
	return out
}

// claimOne claims every due delivery and returns id's, failing without it.
func (e *scriptEnv) claimOne(prefix, id string) job {
	e.t.Helper()
	j, ok := e.claim(prefix, 100, 100, nil)[id]
	if !ok {
		e.t.Fatalf("%s was not claimed", id)
	}
	return j
}

// record stores an attempt of j: acknowledged, or failed with the next
// attempt after next (negative: none left).
func (e *scriptEnv) record(j job, ack bool, next time.Duration) string {
	e.t.Helper()
	rec := schema.WebhookAttempt{At: time.Now().UTC().Format(time.RFC3339), Attempt: j.seq, Manual: j.manual != "", Success: ack}
	out, _, err := e.s.record(context.Background(), j, ack, rec, next, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// deliveryState is what the scripts left of one delivery.
type deliveryState struct {
	hash    map[string]string
	queued  bool // in its host queue
	due     int64
	dead    bool // in the shard's dead-letter set
	logged  int64
	indexed bool // its host is in the shard's hosts index
}

func (e *scriptEnv) state(id, url string) deliveryState {
	e.t.Helper()
	ctx := context.Background()
	var a deliveryState
	var err error
	if a.hash, err = e.rdb.HGetAll(ctx, schema.WebhookKey(scriptShard, id)).Result(); err != nil {
		e.t.Fatal(err)
	}
	score := func(key, member string) (float64, bool) {
		s, err := e.rdb.ZScore(ctx, key, member).Result()
		if errors.Is(err, redis.Nil) {
			return 0, false
		}
		if err != nil {
			e.t.Fatal(err)
		}
		return s, true
	}
	var due float64
	due, a.queued = score(schema.WebhookQueueKey(scriptShard, hostOf(url)), id)
	a.due = int64(due)
	_, a.dead = score(schema.WebhookDeadKey(scriptShard), id)
	_, a.indexed = score(schema.WebhookHostsKey(scriptShard), hostOf(url))
	if a.logged, err = e.rdb.LLen(ctx, schema.WebhookLogKey(scriptShard, id)).Result(); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// resendAndClaim queues a manual resend of id, which must be in state from,
// and claims it.
func (e *scriptEnv) resendAndClaim(id, from string) job {
	e.t.Helper()
	if out, err := e.s.requeueAudited(context.Background(), "", id, "", nil); err != nil || out != "queued" {
		e.t.Fatalf("resend from %s: %q, %v", from, out, err)
	}
	j := e.claimOne("manual:", id)
	if j.manual != from {
		e.t.Fatalf("resent job marked %q, want %q", j.manual, from)
	}
	return j
}
