package command

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

func TestRescheduleUSDT(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	id := h.underReview(hash64("c9"))
	shard, _ := schema.ParseOrderID(id)
	due := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	if err := h.uc.Review.Reschedule(ctx, id, due); err != nil {
		t.Fatal(err)
	}
	if score := h.rdb.ZScore(ctx, schema.USDTReviewsKey(shard), id).Val(); int64(score) != due.UnixMilli() {
		t.Fatalf("due %v, want %d", score, due.UnixMilli())
	}
	if _, err := h.uc.Review.Approve(ctx, id, hash64("c9"), decision("r")); err != nil {
		t.Fatal(err)
	}
	if err := h.uc.Review.Reschedule(ctx, id, due); kindOf(err) != platform.KindConflict {
		t.Fatalf("rescheduling a decided order: %v", err)
	}
	if h.reviewKeys(id).queued {
		t.Fatal("a decided order went back to the queue")
	}
}

// TestUSDTReviewsStates: each backlog state lists exactly its orders.
func TestUSDTReviewsStates(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	queued := h.underReview(hash64("11"))
	waiting := h.underReview(hash64("12"))
	rejected := h.underReview(hash64("13"))
	paid := h.underReview(hash64("14"))
	gone := h.underReview(hash64("15"))
	cancelled := h.underReview(hash64("16"))
	steps := []error{}
	_, err := h.uc.Review.Reject(ctx, cancelled, hash64("16"), decision("r"))
	steps = append(steps, err)
	_, err = h.store.Transition(ctx, cancelled, schema.StatusCancelled, time.Now())
	steps = append(steps, err)
	_, err = h.uc.Review.Escalate(ctx, waiting, hash64("12"), decision("r"))
	steps = append(steps, err)
	_, err = h.uc.Review.Reject(ctx, rejected, hash64("13"), decision("r"))
	steps = append(steps, err)
	_, err = h.uc.Review.Approve(ctx, paid, hash64("14"), decision("r"))
	steps = append(steps, err)
	_, err = h.uc.Review.Reject(ctx, gone, hash64("15"), decision("r"))
	steps = append(steps, err)
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	shard, _ := schema.ParseOrderID(gone)
	h.rdb.Del(ctx, schema.OrderKey(shard, gone)) // past its retention
	tests := []struct {
		state string
		want  []string
	}{
		{BacklogWaiting, []string{waiting}},
		{BacklogFailed, []string{rejected}},
		{BacklogAll, []string{queued, waiting}},
	}
	for _, tt := range tests {
		t.Run(tt.state, func(t *testing.T) {
			orders, err := h.uc.Backlog.Reviews(ctx, tt.state)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range orders {
				got = append(got, o.ID)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %v, want %v", tt.state, got, want)
			}
		})
	}
	if h.rdb.ZScore(ctx, schema.USDTDeskKey(shard), gone).Err() != redis.Nil {
		t.Fatal("an order gone from Redis stayed in the backlog")
	}
	if _, err := h.uc.Backlog.Reviews(ctx, "everything"); kindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("unknown state: %v", err)
	}
}

// TestHistoryFollowsTheOrder: a waiting order's history has no expiry, as
// the order has none; once the order is final, both expire together.
func TestHistoryFollowsTheOrder(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	id := h.underReview(hash64("d1"))
	if _, err := h.uc.Review.Escalate(ctx, id, hash64("d1"), decision("r")); err != nil {
		t.Fatal(err)
	}
	shard, _ := schema.ParseOrderID(id)
	key := schema.OrderHistoryKey(shard, id)
	if ttl := h.rdb.TTL(ctx, key).Val(); ttl != -1 {
		t.Fatalf("history of a live order expires in %v", ttl)
	}
	if _, err := h.store.Transition(ctx, id, schema.StatusFailed, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ttl := h.rdb.TTL(ctx, key).Val(); ttl <= 0 {
		t.Fatalf("history of a final order: ttl %v", ttl)
	}
}
