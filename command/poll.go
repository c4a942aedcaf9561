package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Orders is the reads of the payer's pages: an order, the polling fast
// path and the expiry the USDT checkout counts down to.
type Orders struct {
	store *Store
}

// Order reads order id for the payer's pages.
func (h *Orders) Order(ctx context.Context, id string) (*schema.Order, error) {
	return h.store.Get(ctx, id)
}

// PollStatus is what every open payer page asks every few seconds: the
// status and the return URL, two fields of the order hash and nothing
// else, so that thousands of open pages cost Redis one small read each.
func (h *Orders) PollStatus(ctx context.Context, id string) (schema.Status, string, error) {
	return h.store.pollStatus(ctx, id)
}

func (s *Store) pollStatus(ctx context.Context, id string) (schema.Status, string, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return 0, "", orderNotFound(id)
	}
	vals, err := platform.Batched(ctx, s.reads, func(ctx context.Context, p redis.Pipeliner) *redis.SliceCmd {
		return p.HMGet(ctx, schema.OrderKey(shard, id), schema.FStatus, schema.FReturnURL)
	}).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, "", fmt.Errorf("read status of %s: %w", id, err)
	}
	st, _ := vals[0].(string)
	if st == "" {
		return 0, "", orderNotFound(id)
	}
	n, err := strconv.Atoi(st)
	if err != nil {
		return 0, "", fmt.Errorf("status of %s: %w", id, err)
	}
	ret, _ := vals[1].(string)
	return schema.Status(n), ret, nil
}

// Expiry is when o is cancelled unless paid: the USDT checkout counts down
// to it.
func (h *Orders) Expiry(o *schema.Order) time.Time {
	return o.CreatedAt.Add(h.store.TTL(o.Method))
}
