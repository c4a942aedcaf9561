package command

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// storeOrder is a new order of the sandbox merchant, not yet stored: pending,
// on its clientOrderId's shard, or on the home shard when it pays from the
// balance.
func (h *harness) storeOrder(coid string, amount schema.Amount, currency string, balance bool) *schema.Order {
	h.t.Helper()
	now := time.Now()
	shard := schema.ShardFor(h.acct.AppID, coid)
	o := &schema.Order{AppID: h.acct.AppID, Sandbox: true, ClientOrderID: coid, Amount: amount, Currency: currency,
		Method: schema.MethodWalletA, Status: schema.StatusPending, CreatedAt: now, UpdatedAt: now, Version: 1}
	if balance {
		shard = schema.HomeShard(h.acct.AppID)
		o.Method, o.Status, o.PaidWithBalance, o.CompletedAt = schema.MethodBalance, schema.StatusPaid, true, now
	}
	o.ID = schema.NewOrderID(now, shard)
	return o
}

// snapshot is what the scripts may change about one order and its shard.
type snapshot struct {
	hash     map[string]string
	ttl      time.Duration
	events   int64
	indexed  bool              // in the shard's expiry index
	coidHeld string            // the order id its clientOrderId key holds, if any
	counter  int64             // the merchant's order counter on the shard
	byStatus map[string]string // the merchant's status counters on the shard
}

func (h *harness) snapshot(o *schema.Order) snapshot {
	h.t.Helper()
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(o.ID)
	var s snapshot
	var err error
	if s.hash, err = h.rdb.HGetAll(ctx, schema.OrderKey(shard, o.ID)).Result(); err != nil {
		h.t.Fatal(err)
	}
	if s.ttl, err = h.rdb.PTTL(ctx, schema.OrderKey(shard, o.ID)).Result(); err != nil {
		h.t.Fatal(err)
	}
	if s.events, err = h.rdb.XLen(ctx, schema.EventsKey(shard)).Result(); err != nil {
		h.t.Fatal(err)
	}
	s.indexed = h.expiring(o.ID)
	if o.ClientOrderID != "" {
		v, err := h.rdb.HGet(ctx, schema.ClientOrdersKey(shard, o.AppID), o.ClientOrderID).Result()
		if errors.Is(err, redis.Nil) {
			v, err = h.rdb.Get(ctx, schema.ClientOrderKey(shard, o.AppID, o.ClientOrderID)).Result()
		}
		switch {
		case err == nil:
			s.coidHeld = schema.UnpackOrderID(v)
		case !errors.Is(err, redis.Nil):
			h.t.Fatal(err)
		}
	}
	switch n, err := h.rdb.Get(ctx, schema.OrderCountKey(shard, o.AppID)).Int64(); {
	case err == nil:
		s.counter = n
	case !errors.Is(err, redis.Nil):
		h.t.Fatal(err)
	}
	if s.byStatus, err = h.rdb.HGetAll(ctx, schema.StatusCountKey(shard, o.AppID)).Result(); err != nil {
		h.t.Fatal(err)
	}
	return s
}

// countsMoved reports whether the status counters of after are those of
// before with one order moved from status from (or from none when from is
// -1) to status to; a counter at 0 and a missing one are the same.
func countsMoved(before, after map[string]string, from, to schema.Status) bool {
	want := map[string]int{}
	for k, v := range before {
		want[k], _ = strconv.Atoi(v)
	}
	if from >= 0 {
		want[strconv.Itoa(int(from))]--
	}
	want[strconv.Itoa(int(to))]++
	for st := schema.StatusPending; st <= schema.StatusCancelled; st++ {
		k := strconv.Itoa(int(st))
		got, _ := strconv.Atoi(after[k])
		if got != want[k] {
			return false
		}
	}
	return len(after) <= int(schema.StatusCancelled)+1
}

// lastEvent decodes the newest event of the order's shard.
func (h *harness) lastEvent(id string) schema.Event {
	h.t.Helper()
	shard, _ := schema.ParseOrderID(id)
	msgs, err := h.rdb.XRevRangeN(context.Background(), schema.EventsKey(shard), "+", "-", 1).Result()
	if err != nil || len(msgs) != 1 {
		h.t.Fatalf("last event of shard %d: %v %v", shard, msgs, err)
	}
	ev, err := schema.DecodeEvent(msgs[0].ID, msgs[0].Values)
	if err != nil {
		h.t.Fatal(err)
	}
	return ev
}

// keys lists the test database's keys, sorted.
func (h *harness) keys() []string {
	h.t.Helper()
	keys, err := h.rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		h.t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}
