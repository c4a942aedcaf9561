package command

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// TestExpiryTrimDropsOnlyWhatItSwept: two sweeps that read the same bucket
// head both trim it; the second must not drop ids nobody swept.
func TestExpiryTrimDropsOnlyWhatItSwept(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	key := schema.ExpiryBucketKey(3, 1000)
	h.rdb.RPush(ctx, key, "a", "b", "c", "d", "e", "f")
	for i, want := range []int64{1, 0} {
		if got := expiryTrimScript.Run(ctx, h.rdb, []string{key}, 3, "c").Val(); got != want {
			t.Fatalf("trim %d answered %v, want %d", i, got, want)
		}
	}
	if left := h.rdb.LRange(ctx, key, 0, -1).Val(); len(left) != 3 || left[0] != "d" {
		t.Fatalf("bucket holds %v, want d e f", left)
	}
}

// TestBucketSweepLeavesMovedAndWaitingOrders: a due expiry bucket cancels
// its unpaid orders, but not one whose expiry the index took over (moved
// later) nor one waiting for an administrator; the index cancels the moved
// one when it is due.
func TestBucketSweepLeavesMovedAndWaitingOrders(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	plain := h.createOK(h.baseParams())["paymentId"].(string)
	moved := h.createOK(h.baseParams())["paymentId"].(string)
	waiting := h.createOK(h.baseParams())["paymentId"].(string)
	h.rdb.ZAdd(ctx, schema.ExpiryKey(mustShard(moved)), redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()), Member: moved})
	h.rdb.HSet(ctx, schema.OrderKey(mustShard(waiting), waiting), schema.FReview, "waiting")
	sweep := h.sweeper(t)
	status := func(id string) schema.Status { return h.status(t, id) }
	sweep(2 * time.Minute) // past the harness's 1-minute TTL
	if status(plain) != schema.StatusCancelled || status(moved) != schema.StatusReady || status(waiting) != schema.StatusReady {
		t.Fatalf("after the bucket: plain %s, moved %s, waiting %s", status(plain), status(moved), status(waiting))
	}
	for _, id := range []string{plain, moved, waiting} {
		if _, ok := h.bucketExpiry(id, schema.MethodWalletA); ok {
			t.Fatalf("order %s still in its swept bucket", id)
		}
	}
	sweep(2 * time.Hour)
	if status(moved) != schema.StatusCancelled || status(waiting) != schema.StatusReady {
		t.Fatalf("after the index: moved %s, waiting %s", status(moved), status(waiting))
	}
	// Both sweeps mark what they cancel as expired (order.expired, not
	// order.cancelled); what they leave is not marked.
	for id, want := range map[string]bool{plain: true, moved: true, waiting: false} {
		if o, err := h.store.Get(ctx, id); err != nil || o.Expired != want {
			t.Fatalf("order %s expired=%v, want %v (%v)", id, o != nil && o.Expired, want, err)
		}
	}
}

// TestSubmitKeepsTheBucketsExpiry: a hash submitted with a review window
// shorter than the order's time left moves the order to the expiry index
// at its bucket's expiry, never earlier than the order would have expired.
func TestSubmitKeepsTheBucketsExpiry(t *testing.T) {
	h := newRedisHarness(t)
	h.uc.USDT.window = time.Second
	ctx := context.Background()
	id := h.usdtOrder(true)
	h.mustChoose(id, "BEP20")
	if _, err := h.uc.USDT.SubmitTxHash(ctx, id, "0x"+hash64("78")); err != nil {
		t.Fatal(err)
	}
	created, _ := schema.OrderIDTime(id)
	due, err := h.rdb.ZScore(ctx, schema.ExpiryKey(mustShard(id)), id).Result()
	if want := created.Add(time.Minute).UnixMilli(); err != nil || int64(due) != want { // the harness's TTL
		t.Fatalf("indexed at %d (%v), want the bucket's expiry %d", int64(due), err, want)
	}
}

// TestSweepAfterAnOutage: buckets that fell due while nobody swept (a long
// outage, cursor far behind) are all swept, in steps of expiryProbe seconds.
func TestSweepAfterAnOutage(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	id := h.createOK(h.baseParams())["paymentId"].(string)
	s := mustShard(id)
	h.rdb.Set(ctx, schema.ExpiryCursorKey(s), time.Now().Add(-3*time.Hour).Unix(), 0)
	settle := h.newSettle()
	later := time.Now().Add(5 * time.Hour)
	settle.now = func() time.Time { return later }
	e := settle.NewExpirer(h.rdb, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := e.Sweep(ctx, s); err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want 1", n, err)
	}
	if cur, _ := h.rdb.Get(ctx, schema.ExpiryCursorKey(s)).Int64(); cur != later.Unix() {
		t.Fatalf("cursor at %d, want %d", cur, later.Unix())
	}
}

// TestOrdersCreatedBeforeTheCompactLayout: an order stored as before the
// compact layout (its id in its hash, its clientOrderId in a key of its own,
// its expiry in the sorted index) is read back whole, a create with its
// clientOrderId replays it, and its expiry cancels it and frees the key.
func TestOrdersCreatedBeforeTheCompactLayout(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	p := h.baseParams()
	p["clientOrderId"] = "OLD-1"
	id := h.createOK(p)["paymentId"].(string)
	s := mustShard(id)
	o, err := h.store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite it the old way: every field in the hash, the key, the index.
	coidKey := schema.ClientOrderKey(s, o.AppID, o.ClientOrderID)
	h.rdb.HDel(ctx, schema.ClientOrdersKey(s, o.AppID), o.ClientOrderID)
	h.rdb.Set(ctx, coidKey, id, 0)
	h.rdb.HSet(ctx, schema.OrderKey(s, id), schema.FID, id, schema.FCreatedAt, o.CreatedAt.UnixMilli(), schema.FUpdatedAt, o.UpdatedAt.UnixMilli())
	if sec, ok := h.bucketExpiry(id, schema.MethodWalletA); ok {
		h.rdb.Del(ctx, schema.ExpiryBucketKey(s, sec))
	}
	h.rdb.ZAdd(ctx, schema.ExpiryKey(s), redis.Z{Score: float64(o.CreatedAt.Add(time.Minute).UnixMilli()), Member: id})
	if again, err := h.store.Get(ctx, id); err != nil || *again != *o {
		t.Fatalf("read back %+v (%v), want %+v", again, err, o)
	}
	if d := h.createOK(p); d["paymentId"] != id {
		t.Fatalf("a create with the old order's clientOrderId made %v, want the replay of %s", d["paymentId"], id)
	}
	settle := h.newSettle()
	settle.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	e := settle.NewExpirer(h.rdb, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := e.Sweep(ctx, s); err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want the old order", n, err)
	}
	if n := h.rdb.Exists(ctx, coidKey).Val(); n != 0 {
		t.Fatal("the cancelled order still holds its clientOrderId key")
	}
	if d := h.createOK(p); d["paymentId"] == id {
		t.Fatal("a create after the old order's expiry replayed it")
	}
}
