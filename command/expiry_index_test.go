package command

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// expiring reports whether the expiry sweep would cancel order id once it
// is due: the shard's expiry index holds it, or an expiry bucket of the
// TTL it was created with lists it while it is unpaid and waits for no
// administrator (a bucket keeps a paid order listed, and its sweep skips it).
func (h *harness) expiring(id string) bool {
	h.t.Helper()
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(id)
	switch err := h.rdb.ZScore(ctx, schema.ExpiryKey(shard), id).Err(); {
	case err == nil:
		return true
	case !errors.Is(err, redis.Nil):
		h.t.Fatal(err)
	}
	f, err := h.rdb.HMGet(ctx, schema.OrderKey(shard, id), schema.FStatus, schema.FMethod, schema.FReview).Result()
	if err != nil {
		h.t.Fatal(err)
	}
	if st, _ := f[0].(string); st != "0" && st != "1" {
		return false
	}
	if rv, _ := f[2].(string); rv == "waiting" {
		return false
	}
	m, _ := f[1].(string)
	_, ok := h.bucketExpiry(id, schema.Method(m), schema.MethodSelect)
	return ok
}

// bucketExpiry finds the expiry bucket that lists order id among those of
// the TTLs of methods, and returns its second.
func (h *harness) bucketExpiry(id string, methods ...schema.Method) (int64, bool) {
	h.t.Helper()
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(id)
	created, _ := schema.OrderIDTime(id)
	for _, m := range methods {
		sec := schema.ExpiryBucketSecond(created.Add(h.store.TTL(m)).UnixMilli())
		switch err := h.rdb.LPos(ctx, schema.ExpiryBucketKey(shard, sec), id, redis.LPosArgs{}).Err(); {
		case err == nil:
			return sec, true
		case !errors.Is(err, redis.Nil):
			h.t.Fatal(err)
		}
	}
	return 0, false
}
