package query

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// RefundReader lists an order's refunds for action=order.
type RefundReader interface {
	Refunds(ctx context.Context, id string) ([]schema.Refund, error)
}

// Refunds reads an order's refunds from their hash beside the order,
// oldest first; none for an id that names no shard.
func (r *RedisOrders) Refunds(ctx context.Context, id string) ([]schema.Refund, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, nil
	}
	h, err := r.rdb.HGetAll(ctx, schema.RefundsKey(shard, id)).Result()
	if err != nil {
		return nil, fmt.Errorf("read refunds of order %s: %w", id, err)
	}
	return schema.DecodeRefunds(h)
}

// withRefunds is the order's view with its refunds, when there is a
// refund reader and the order is paid (only a paid order has refunds).
func (q *Orders) withRefunds(ctx context.Context, o *schema.Order) (schema.OrderView, error) {
	v := schema.View(o, q.cfg.PublicURL)
	if q.refunds == nil || o.Status != schema.StatusPaid {
		return v, nil
	}
	rs, err := q.refunds.Refunds(ctx, o.ID)
	if err != nil {
		return v, err
	}
	return v.WithRefunds(rs), nil
}
