package reviewer

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// TestClaimScript: a claim takes the due reviews only, at most n, and hides
// them for the lease; dropping a claim needs the claim to still be ours.
func TestClaimScript(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := newQueue(e.rdb)
	s := schema.Shard(5)
	key := schema.USDTReviewsKey(s)
	now := time.Now().UnixMilli()
	err := e.rdb.ZAdd(ctx, key, redis.Z{Score: float64(now - 1000), Member: "a"}, redis.Z{Score: float64(now - 10), Member: "b"},
		redis.Z{Score: float64(now + 60_000), Member: "later"}).Err()
	if err != nil {
		t.Fatal(err)
	}

	one, err := q.take(ctx, s, 1, 5000)
	if err != nil || len(one) != 1 || one[0].id != "a" {
		t.Fatalf("claim of one: %+v, %v; want a, the earliest due", one, err)
	}
	rest, err := q.take(ctx, s, 10, 5000)
	if err != nil || len(rest) != 1 || rest[0].id != "b" {
		t.Fatalf("second claim: %+v, %v; want b only (a is leased, later is not due)", rest, err)
	}
	if again, err := q.take(ctx, s, 10, 5000); err != nil || len(again) != 0 {
		t.Fatalf("third claim: %+v, %v; want nothing while the leases run", again, err)
	}
	for _, c := range append(one, rest...) {
		score := e.rdb.ZScore(ctx, key, c.id).Val()
		if int64(score) != c.till || c.till < now+5000 || c.shard != s {
			t.Fatalf("claim %+v: score %v, want the lease's end, at least %d", c, score, now+5000)
		}
	}
	if score := e.rdb.ZScore(ctx, key, "later").Val(); int64(score) != now+60_000 {
		t.Fatalf("a review not due was moved to %v", score)
	}

	// a is queued again (a new hash) after its claim: the old claim must
	// not drop it. b's claim still stands: dropped.
	if err := e.rdb.ZAdd(ctx, key, redis.Z{Score: float64(now), Member: "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := q.forget(ctx, one[0]); err != nil {
		t.Fatal(err)
	}
	if err := q.forget(ctx, rest[0]); err != nil {
		t.Fatal(err)
	}
	members := e.rdb.ZRange(ctx, key, 0, -1).Val()
	if fmt.Sprint(members) != "[a later]" {
		t.Fatalf("queue after the drops: %v, want [a later]", members)
	}

	// A lease that ran out makes the review due again for anyone.
	short, err := q.take(ctx, s, 10, 1)
	if err != nil || len(short) != 1 || short[0].id != "a" {
		t.Fatalf("claim: %+v, %v", short, err)
	}
	testenv.Eventually(t, 5*time.Second, "the 1 ms lease runs out", func() bool {
		got, err := q.take(ctx, s, 10, 5000)
		return err == nil && len(got) == 1 && got[0].id == "a"
	})
}

// TestTwoReviewersNeverReviewOneOrderAtOnce: two reviewers share the
// queues; each review is slow and needs three checks (too few confirmations
// twice). No order is ever in two reviews at once, and each is approved
// exactly once.
func TestTwoReviewersNeverReviewOneOrderAtOnce(t *testing.T) {
	e := newEnv(t)
	c := e.chain(trc20.Name)
	c.hold = 3 * time.Millisecond
	c.next = func(n int, tx *usdt.Tx) { tx.Confirmations = int64(10 * n) } // deep enough at the third look
	const orders = 40
	ids := make([]string, orders)
	for i := range ids {
		o := e.newOrder(trc20.Name, fmt.Sprintf("3.%06d", i+1), fmt.Sprintf("0xtwo%02d", i))
		c.set(goodTx(t, o, trc20), nil)
		ids[i] = o.ID
	}
	cfg := testConfig()
	cfg.Backoff = []time.Duration{time.Millisecond}
	a, b := e.start(cfg, nil), e.start(cfg, nil)
	testenv.Eventually(t, 30*time.Second, "every order decided", func() bool { return len(e.outcomes()) >= orders })
	if busiest := c.busiest(); busiest != 1 {
		t.Fatalf("an order was in %d reviews at once", busiest)
	}
	by := map[string]int{}
	for _, id := range ids {
		got := e.outcomesOf(id)
		if len(got) != 1 || got[0].Outcome != "approve" {
			t.Fatalf("order %s: outcomes %+v, want one approve", id, got)
		}
		by[got[0].D.By]++
	}
	if len(e.outcomes()) != orders {
		t.Fatalf("%d outcomes landed, want %d", len(e.outcomes()), orders)
	}
	if by[a.ID()] == 0 || by[b.ID()] == 0 {
		t.Fatalf("decided by %v: both reviewers should have taken part", by)
	}
}

// TestShardsTakeTurns: with one review slot, a shard with a backlog does
// not keep another shard's review waiting behind all of it.
func TestShardsTakeTurns(t *testing.T) {
	e := newEnv(t)
	c := e.chain(trc20.Name)
	c.hold = 20 * time.Millisecond
	now := time.Now().UTC()
	order := func(s schema.Shard, i int) *schema.Order {
		o := &schema.Order{ID: schema.NewOrderID(now, s), Method: schema.MethodUSDTDirect, Status: schema.StatusReady,
			NextAction: schema.NextUSDTReview, PayableAmount: fmt.Sprintf("5.%06d", i), Network: trc20.Name,
			TxHash: fmt.Sprintf("0xturn%d-%d", s, i), CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Minute)}
		c.set(goodTx(t, o, trc20), nil)
		e.queue(o)
		return o
	}
	const backlog = 10
	busy := make([]*schema.Order, backlog)
	for i := range busy {
		busy[i] = order(3, i+1)
	}
	cfg := testConfig()
	cfg.Batch = 1
	e.start(cfg, nil)
	testenv.Eventually(t, 10*time.Second, "the backlog started", func() bool { return len(e.outcomes()) >= 1 })
	other := order(9, 99)
	e.decided(other.ID)
	done := 0
	for _, o := range busy {
		done += len(e.outcomesOf(o.ID))
	}
	if done > 3 {
		t.Fatalf("%d of the backlog's %d reviews ran before the other shard's one", done, backlog)
	}
}

// TestNotUnderReviewLeavesTheQueue: an order gone, paid meanwhile, or
// with an administrator leaves the queue with no outcome call.
func TestNotUnderReviewLeavesTheQueue(t *testing.T) {
	cases := []struct {
		name   string
		change func(e *env, o *schema.Order)
	}{
		{"gone", func(e *env, o *schema.Order) {
			e.orders.mu.Lock()
			delete(e.orders.orders, o.ID)
			e.orders.mu.Unlock()
		}},
		{"paid another way", func(e *env, o *schema.Order) {
			o.Status, o.NextAction = schema.StatusPaid, ""
			e.orders.put(o)
		}},
		{"cancelled", func(e *env, o *schema.Order) {
			o.Status = schema.StatusCancelled
			e.orders.put(o)
		}},
		{"with an administrator", func(e *env, o *schema.Order) {
			o.Review = usdt.OutcomeWaiting
			e.orders.put(o)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			o := e.newOrder(trc20.Name, "1.000001", "0xgone")
			var asked atomic.Int32
			e.chain(trc20.Name).onEnter = func(string) { asked.Add(1) }
			e.chain(trc20.Name).set(goodTx(t, o, trc20), nil)
			tc.change(e, o)
			e.start(testConfig(), nil)
			testenv.Eventually(t, 10*time.Second, "dropped from the queue", func() bool { return !e.queued(o.ID) })
			if got := e.outcomes(); len(got) != 0 || asked.Load() != 0 {
				t.Fatalf("outcomes %+v, chain asked %d times: want none", got, asked.Load())
			}
		})
	}
}

// TestWaitingGauge: the gauge shows what the desk counts.
func TestWaitingGauge(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int32
	n.Store(3)
	r := e.start(testConfig(), func(context.Context) (int, error) { return int(n.Load()), nil })
	testenv.Eventually(t, 5*time.Second, "gauge at 3", func() bool {
		return metricValue(t, r.reg, "gateway_usdt_reviews_waiting", nil) == 3
	})
	n.Store(0)
	testenv.Eventually(t, 5*time.Second, "gauge at 0", func() bool {
		return metricValue(t, r.reg, "gateway_usdt_reviews_waiting", nil) == 0
	})
}
