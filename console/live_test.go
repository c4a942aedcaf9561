package console

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// emit writes an order event as the command side's scripts do.
func emit(t *testing.T, rdb redis.UniversalClient, o *schema.Order, typ schema.EventType) {
	t.Helper()
	shard, _ := schema.ParseOrderID(o.ID)
	if err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: schema.EventFields(typ, time.Now(), o)}).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveFeedFansOutFromOneReader(t *testing.T) {
	rdb := testenv.Redis(t)
	hub, err := NewHub(rdb, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hub.every = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { hub.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	old := &schema.Order{ID: schema.NewOrderID(time.Now(), schema.Shard(3)), AppID: "shop", Amount: 100, Currency: "CNY", Method: "wallet_a", CreatedAt: time.Now(), Version: 1}
	emit(t, rdb, old, schema.EventCreated) // before anyone listens: never sent
	const consoles = 100
	var subs []*Sub
	for range consoles {
		subs = append(subs, hub.Subscribe("shop"))
	}
	other := hub.Subscribe("other")
	// The feed starts at the streams' ends once someone listens: wait
	// until the reader has polled at least once after the subscriptions.
	testenv.Eventually(t, 5*time.Second, "the feed's first poll", func() bool { return testutil.ToFloat64(hub.reads) >= 2 })
	var want []string
	for i := range 3 {
		o := &schema.Order{ID: schema.NewOrderID(time.Now(), schema.Shard(i*5)), AppID: "shop", Amount: 100, Currency: "CNY", Method: "wallet_a",
			Status: schema.StatusPaid, CreatedAt: time.Now(), Version: 2}
		emit(t, rdb, o, schema.EventPaid)
		want = append(want, o.ID)
	}
	emit(t, rdb, &schema.Order{ID: schema.NewOrderID(time.Now(), schema.Shard(1)), AppID: "other", Amount: 1, Currency: "CNY", Method: "wallet_a", CreatedAt: time.Now(), Version: 1}, schema.EventCreated)
	for i, s := range subs {
		got := map[string]bool{}
		for range want {
			select {
			case lo := <-s.C:
				if lo.Status != "paid" {
					t.Fatalf("console %d got %+v", i, lo)
				}
				got[lo.ID] = true
			case <-time.After(5 * time.Second):
				t.Fatalf("console %d got %d of %d events", i, len(got), len(want))
			}
		}
		for _, id := range want {
			if !got[id] {
				t.Fatalf("console %d missed %s (got %v); the event from before it listened must not come", i, id, got)
			}
		}
	}
	select {
	case lo := <-other.C:
		if lo.ID != "" && lo.Amount != "0.01" {
			t.Fatalf("the other merchant's console got the shop's order %+v", lo)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other merchant's console missed its own order")
	}
	// Every event read once by the hub's one reader and fanned out to
	// each console of its merchant.
	if sent := testutil.ToFloat64(hub.sent); sent != float64(consoles*len(want)+1) {
		t.Errorf("%v events sent, want %d", sent, consoles*len(want)+1)
	}
	for _, s := range append(subs, other) {
		hub.Unsubscribe(s)
	}
	if testutil.ToFloat64(hub.open) != 0 {
		t.Errorf("%v feeds open after all closed", testutil.ToFloat64(hub.open))
	}
}
