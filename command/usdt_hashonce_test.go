package command

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestSubmitQueuesReview: the script that records the hash puts the order
// in its shard's review queue, due at the submit's time; a refused submit
// queues nothing.
func TestSubmitQueuesReview(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	at := time.UnixMilli(time.Now().UnixMilli())
	h.create.now = func() time.Time { return at }
	id := h.underReview(hash64("a1"))
	shard, _ := schema.ParseOrderID(id)
	if score := h.rdb.ZScore(ctx, schema.USDTReviewsKey(shard), id).Val(); int64(score) != at.UnixMilli() {
		t.Fatalf("queued at %v, want %d", score, at.UnixMilli())
	}
	other := h.usdtOrder(true) // no network chosen: the submit is refused
	if _, err := h.create.SubmitTxHash(ctx, other, hash64("a2")); err == nil {
		t.Fatal("submit without a network accepted")
	}
	if h.reviewKeys(other).queued {
		t.Fatal("a refused submit queued the order")
	}
}

// TestTxHashPaysOneOrderEver: the reservation never expires and stays
// with the first order that recorded it, cancelled or rejected.
func TestTxHashPaysOneOrderEver(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		after func(h *harness, id, hash string) // what happens to the first order
	}{
		{"first order cancelled", func(h *harness, id, _ string) {
			if _, err := h.store.Transition(ctx, id, schema.StatusCancelled, time.Now()); err != nil {
				h.t.Fatal(err)
			}
		}},
		{"first order's hash rejected", func(h *harness, id, hash string) {
			if _, err := h.create.RejectUSDT(ctx, id, hash, decision("reviewer-1")); err != nil {
				h.t.Fatal(err)
			}
		}},
		{"first order paid", func(h *harness, id, hash string) {
			if _, err := h.create.ApproveUSDT(ctx, id, hash, decision("reviewer-1")); err != nil {
				h.t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			hash := hash64("b2")
			first := h.underReview(hash)
			key := schema.USDTTxKey("TRC20", hash)
			if ttl := h.rdb.TTL(ctx, key).Val(); ttl != -1 {
				t.Fatalf("reservation expires in %v", ttl)
			}
			tt.after(h, first, hash)
			second := h.usdtOrder(true)
			h.mustChoose(second, "TRC20")
			if _, err := h.create.SubmitTxHash(ctx, second, hash); kindOf(err) != platform.KindConflict {
				t.Fatalf("another order submitting the hash: %v", err)
			}
			if holder := h.rdb.Get(ctx, key).Val(); holder != first {
				t.Fatalf("hash now held by %q", holder)
			}
		})
	}
}

// TestRejectedHashStaysWithItsOrder: the order whose hash was rejected may
// submit it again; a stale submit of it that loses (the order was
// cancelled meanwhile) does not give the reservation back, since this call
// did not make it.
func TestRejectedHashStaysWithItsOrder(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	hash := hash64("c3")
	id := h.underReview(hash)
	if _, err := h.create.RejectUSDT(ctx, id, hash, decision("r")); err != nil {
		t.Fatal(err)
	}
	stale, _ := h.store.Get(ctx, id)
	if _, err := h.store.Transition(ctx, id, schema.StatusCancelled, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.create.submitTx(ctx, stale, hash); kindOf(err) != platform.KindConflict {
		t.Fatalf("submit to a cancelled order: %v", err)
	}
	if holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash)).Val(); holder != id {
		t.Fatalf("a losing submit gave the hash away: held by %q", holder)
	}

	again := h.underReview(hash64("d4"))
	if _, err := h.create.RejectUSDT(ctx, again, hash64("d4"), decision("r")); err != nil {
		t.Fatal(err)
	}
	o, err := h.create.SubmitTxHash(ctx, again, hash64("d4"))
	if err != nil || o.TxHash != hash64("d4") || o.Review != "" || o.ReviewReason != "" {
		t.Fatalf("resubmitting its own rejected hash: %+v %v", o, err)
	}
	if k := h.reviewKeys(again); !k.queued || k.onDesk {
		t.Fatalf("resubmitted: %+v", k)
	}
}

// TestConcurrentSubmitsOfOneHash: two payers submit one hash to their two
// orders at once: exactly one order gets it.
func TestConcurrentSubmitsOfOneHash(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	const n = 8
	hash := hash64("e5")
	orders := make([]*schema.Order, n)
	for i := range orders {
		id := h.usdtOrder(true)
		h.mustChoose(id, "TRC20")
		orders[i], _ = h.store.Get(ctx, id)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = h.create.submitTx(ctx, orders[i], hash) })
	}
	wg.Wait()
	holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash)).Val()
	won := 0
	for i, err := range errs {
		o, _ := h.store.Get(ctx, orders[i].ID)
		switch {
		case err == nil:
			won++
			if holder != o.ID || o.TxHash != hash {
				t.Fatalf("winner %s holds %q, reservation %s", o.ID, o.TxHash, holder)
			}
		case kindOf(err) != platform.KindConflict || o.TxHash != "":
			t.Fatalf("loser %d: %v, holds %q", i, err, o.TxHash)
		}
	}
	if won != 1 {
		t.Fatalf("%d orders got the hash", won)
	}
}
