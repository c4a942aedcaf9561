package command

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

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

	settle := h.create.NewSettle()
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
	}
	if total != 1 {
		t.Fatalf("%d orders cancelled, want 1", total)
	}
	o, _ := h.store.Get(ctx, unpaid)
	if o.Status != schema.StatusCancelled || o.Version != 3 { // created, ready, cancelled
		t.Fatalf("expired order: %s v%d", o.Status, o.Version)
	}
	if o, _ := h.store.Get(ctx, paid); o.Status != schema.StatusPaid {
		t.Fatalf("paid order became %s", o.Status)
	}
	shard, _ := schema.ParseOrderID(unpaid)
	msgs, _ := h.rdb.XRange(ctx, schema.EventsKey(shard), "-", "+").Result()
	if last := msgs[len(msgs)-1]; last.Values["type"] != "cancelled" {
		t.Fatalf("last event %v", last.Values)
	}
	if d := h.createOK(p); d["paymentId"] == unpaid || d["idempotent"] != false {
		t.Fatalf("a cancelled order still holds its clientOrderId: %v", d)
	}
}
