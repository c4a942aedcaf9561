package query

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// RedisOrders reads live and recently finished orders from their hashes.
type RedisOrders struct {
	rdb *redis.Client
}

// NewRedisOrders wraps a Redis client.
func NewRedisOrders(rdb *redis.Client) *RedisOrders { return &RedisOrders{rdb: rdb} }

// Order reads one order by id; the id names its shard.
func (r *RedisOrders) Order(ctx context.Context, id string) (*schema.Order, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, ErrNotFound
	}
	h, err := r.rdb.HGetAll(ctx, schema.OrderKey(shard, id)).Result()
	if err != nil {
		return nil, fmt.Errorf("read order %s: %w", id, err)
	}
	if len(h) == 0 {
		return nil, ErrNotFound
	}
	o, err := schema.OrderFromFields(h)
	if err != nil {
		return nil, err
	}
	return &o, nil
}
