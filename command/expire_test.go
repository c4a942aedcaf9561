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

// TestExpiry: an unpaid order past its time to live is cancelled by the
// sweep (event, clientOrderId freed, index emptied); one paid in time is not.
func TestExpiry(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	p := h.baseParams()
	p["clientOrderId"] = "EXP-1"
	unpaid := h.createOK(p)["paymentId"].(string)
	paid := h.createOK(h.baseParams())["paymentId"].(string)
	sandboxMove(t, h, paid, "pay")

	settle := h.newSettle()
	e := settle.NewExpirer(h.rdb, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	total := 0
	for _, s := range schema.AllShards() {
		n, err := e.Sweep(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != 0 {
		t.Fatalf("%d orders cancelled before their time", total)
	}
	settle.now = func() time.Time { return time.Now().Add(2 * time.Minute) } // the harness's TTL is 1 minute
	for _, s := range schema.AllShards() {
		n, _ := e.Sweep(ctx, s)
		total += n
		if left := h.rdb.ZCard(ctx, schema.ExpiryKey(s)).Val(); left != 0 {
			t.Fatalf("shard %d still indexes %d orders", s, left)
		}
		if cur, _ := h.rdb.Get(ctx, schema.ExpiryCursorKey(s)).Int64(); cur < time.Now().Add(time.Minute).Unix() {
			t.Fatalf("shard %d's expiry cursor at %d, before the due buckets", s, cur)
		}
	}
	if total != 1 {
		t.Fatalf("%d orders cancelled, want 1", total)
	}
	o, _ := h.store.Get(ctx, unpaid)
	if o.Status != schema.StatusCancelled || o.Version != 3 || !o.Expired { // created, ready, cancelled
		t.Fatalf("expired order: %s v%d expired=%v", o.Status, o.Version, o.Expired)
	}
	if o, _ := h.store.Get(ctx, paid); o.Status != schema.StatusPaid {
		t.Fatalf("paid order became %s", o.Status)
	}
	shard, _ := schema.ParseOrderID(unpaid)
	msgs, _ := h.rdb.XRange(ctx, schema.EventsKey(shard), "-", "+").Result()
	if last := msgs[len(msgs)-1]; last.Values["type"] != "cancelled" || last.Values[schema.FExpired] != "1" {
		t.Fatalf("last event %v: want cancelled, marked expired", last.Values)
	}
	if d := h.createOK(p); d["paymentId"] == unpaid || d["idempotent"] != false {
		t.Fatalf("a cancelled order still holds its clientOrderId: %v", d)
	}
}

// TestTwoExpirersCancelOnce: two processes sweeping the same shards at once
// cancel each due order exactly once (one cancelled event each).
func TestTwoExpirersCancelOnce(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	ids := make([]string, 30)
	for i := range ids {
		ids[i] = h.createOK(h.baseParams())["paymentId"].(string)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Minute) }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	counts := make([]int, 2)
	done := make(chan error, 2)
	for i := range counts {
		settle := h.newSettle()
		settle.now = later
		e := settle.NewExpirer(h.rdb, time.Second, log)
		go func() {
			for _, s := range schema.AllShards() {
				n, err := e.Sweep(ctx, s)
				if err != nil {
					done <- err
					return
				}
				counts[i] += n
			}
			done <- nil
		}()
	}
	for range counts {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if counts[0]+counts[1] != len(ids) {
		t.Fatalf("cancelled %v, want %d in all", counts, len(ids))
	}
	for _, id := range ids {
		shard, _ := schema.ParseOrderID(id)
		if n := countEvents(t, h, shard, id); n != 3 { // created, ready, cancelled
			t.Fatalf("order %s has %d events, want 3", id, n)
		}
	}
}

// TestMethodTTL: an unpaid order expires at its method's TTL when one is
// set, else at the default.
func TestMethodTTL(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	store := NewStore(h.rdb, time.Minute, time.Hour).WithMethodTTLs(map[schema.Method]time.Duration{schema.MethodCryptoPSP: time.Hour})
	at := time.Now().UTC().Truncate(time.Millisecond)
	for _, tt := range []struct {
		m    schema.Method
		want time.Duration
	}{{schema.MethodCryptoPSP, time.Hour}, {schema.MethodWalletA, time.Minute}} {
		o := &schema.Order{ID: schema.NewOrderID(at, 3), AppID: "1", Amount: 100, Currency: "USD", Method: tt.m,
			CreatedAt: at, UpdatedAt: at, Version: 1}
		if _, _, err := store.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		want := schema.ExpiryBucketSecond(at.Add(tt.want).UnixMilli())
		if err := h.rdb.LPos(ctx, schema.ExpiryBucketKey(3, want), o.ID, redis.LPosArgs{}).Err(); err != nil {
			t.Fatalf("%s not in the expiry bucket of created + %v: %v", tt.m, tt.want, err)
		}
	}
}
