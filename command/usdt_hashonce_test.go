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
	h.uc.USDT.now = func() time.Time { return at }
	id := h.underReview(hash64("a1"))
	shard, _ := schema.ParseOrderID(id)
	if score := h.rdb.ZScore(ctx, schema.USDTReviewsKey(shard), id).Val(); int64(score) != at.UnixMilli() {
		t.Fatalf("queued at %v, want %d", score, at.UnixMilli())
	}
	other := h.usdtOrder(true) // no network chosen: the submit is refused
	if _, err := h.uc.USDT.SubmitTxHash(ctx, other, hash64("a2")); err == nil {
		t.Fatal("submit without a network accepted")
	}
	if h.reviewKeys(other).queued {
		t.Fatal("a refused submit queued the order")
	}
}

// TestTxHashFollowsTheOrderHoldingIt: a hash stays reserved while its
// order holds it (under review, cancelled with it, paid by it); once the
// order's review rejected it (the transfer is not that order's), another
// order may submit it: a payer who submits someone else's public transfer
// first blocks nobody (a security review finding).
func TestTxHashFollowsTheOrderHoldingIt(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		after func(h *harness, id, hash string) // what happens to the first order
		free  bool                              // the second order gets the hash
	}{
		{"first order still under review", func(*harness, string, string) {}, false},
		{"first order cancelled holding it", func(h *harness, id, _ string) {
			if _, err := h.store.Transition(ctx, id, schema.StatusCancelled, time.Now()); err != nil {
				h.t.Fatal(err)
			}
		}, false},
		{"first order waiting for an administrator", func(h *harness, id, hash string) {
			if _, err := h.uc.Review.Escalate(ctx, id, hash, decision("reviewer-1")); err != nil {
				h.t.Fatal(err)
			}
		}, false},
		{"first order paid", func(h *harness, id, hash string) {
			if _, err := h.uc.Review.Approve(ctx, id, hash, decision("reviewer-1")); err != nil {
				h.t.Fatal(err)
			}
		}, false},
		{"first order's hash rejected", func(h *harness, id, hash string) {
			if _, err := h.uc.Review.Reject(ctx, id, hash, decision("reviewer-1")); err != nil {
				h.t.Fatal(err)
			}
		}, true},
		{"rejected before the release existed (reservation left behind)", func(h *harness, id, hash string) {
			if _, err := h.uc.Review.Reject(ctx, id, hash, decision("reviewer-1")); err != nil {
				h.t.Fatal(err)
			}
			h.rdb.Set(ctx, schema.USDTTxKey("TRC20", hash), id, 0)
		}, true},
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
			_, err := h.uc.USDT.SubmitTxHash(ctx, second, hash)
			want := first
			if tt.free {
				want = second
				if err != nil {
					t.Fatalf("the order the transfer may pay was refused: %v", err)
				}
			} else if kindOf(err) != platform.KindConflict {
				t.Fatalf("another order submitting the hash: %v", err)
			}
			if holder := h.rdb.Get(ctx, key).Val(); holder != want {
				t.Fatalf("hash now held by %q, want %q", holder, want)
			}
		})
	}
}

// TestRejectedHashIsReleased: a rejection gives the reservation back; the
// rejected order may still submit the hash again (and then holds it); a
// stale submit that loses gives back only what it reserved itself.
func TestRejectedHashIsReleased(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	hash := hash64("c3")
	key := schema.USDTTxKey("TRC20", hash)
	id := h.underReview(hash)
	if _, err := h.uc.Review.Reject(ctx, id, hash, decision("r")); err != nil {
		t.Fatal(err)
	}
	if n := h.rdb.Exists(ctx, key).Val(); n != 0 {
		t.Fatalf("a rejected hash stayed reserved for %q", h.rdb.Get(ctx, key).Val())
	}
	stale, _ := h.store.Get(ctx, id)
	if _, err := h.store.Transition(ctx, id, schema.StatusCancelled, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.uc.USDT.submitTx(ctx, stale, hash); kindOf(err) != platform.KindConflict {
		t.Fatalf("submit to a cancelled order: %v", err)
	}
	if n := h.rdb.Exists(ctx, key).Val(); n != 0 {
		t.Fatal("a losing submit kept the hash")
	}

	again := h.underReview(hash64("d4"))
	if _, err := h.uc.Review.Reject(ctx, again, hash64("d4"), decision("r")); err != nil {
		t.Fatal(err)
	}
	o, err := h.uc.USDT.SubmitTxHash(ctx, again, hash64("d4"))
	if err != nil || o.TxHash != hash64("d4") || o.Review != "" || o.ReviewReason != "" {
		t.Fatalf("resubmitting its own rejected hash: %+v %v", o, err)
	}
	if k := h.reviewKeys(again); !k.queued || k.onDesk {
		t.Fatalf("resubmitted: %+v", k)
	}
	if holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash64("d4"))).Val(); holder != again {
		t.Fatalf("resubmitted hash held by %q", holder)
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
		wg.Go(func() { _, errs[i] = h.uc.USDT.submitTx(ctx, orders[i], hash) })
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
