package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// maxQuery bounds a search: a payment id or clientOrderId is far shorter.
const maxQuery = 128

// search is List for one order, named by its payment id or its
// clientOrderId: its paid webhook's delivery and its refunds', newest
// first. An order of another merchant finds nothing, like a missing one.
func (m *MerchantDeliveries) search(ctx context.Context, appid string, f ListFilter) ([]DeliveryRow, error) {
	q := strings.TrimSpace(f.Query)
	if q == "" || len(q) > maxQuery {
		return nil, nil
	}
	id, err := m.orderOf(ctx, appid, q)
	if err != nil || id == "" {
		return nil, err
	}
	shard, _ := schema.ParseOrderID(id)
	refunds, err := m.rdb.HKeys(ctx, schema.RefundsKey(shard, id)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read refunds of %s: %w", id, err)
	}
	cands := []candidate{{shard: shard, id: id}}
	for _, r := range refunds {
		if schema.IsRefundID(r) {
			cands = append(cands, candidate{shard: shard, id: r})
		}
	}
	rows, err := m.rows(ctx, appid, cands, true)
	if err != nil {
		return nil, err
	}
	rows = slices.DeleteFunc(rows, func(r DeliveryRow) bool {
		return r.PaymentID != id || (f.State != "" && r.State != f.State)
	})
	slices.SortStableFunc(rows, func(a, b DeliveryRow) int { return b.At.Compare(a.At) })
	return rows[:min(len(rows), f.Limit)], nil
}

// orderOf is the order q names: q itself when it is a payment id, else the
// live order of appid holding clientOrderId q (the index the create keeps,
// or the older per-order key), "" when none.
func (m *MerchantDeliveries) orderOf(ctx context.Context, appid, q string) (string, error) {
	if _, ok := schema.ParseOrderID(q); ok {
		return q, nil
	}
	shards := schema.AllShards()
	packed := make([]*redis.StringCmd, len(shards))
	legacy := make([]*redis.StringCmd, len(shards))
	_, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, sh := range shards {
			packed[i] = p.HGet(ctx, schema.ClientOrdersKey(sh, appid), q)
			legacy[i] = p.Get(ctx, schema.ClientOrderKey(sh, appid, q))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("find clientOrderId of %s: %w", appid, err)
	}
	for i := range shards {
		for _, c := range []*redis.StringCmd{packed[i], legacy[i]} {
			if v := c.Val(); v != "" {
				if id := schema.UnpackOrderID(v); id != "" {
					if _, ok := schema.ParseOrderID(id); ok {
						return id, nil
					}
				}
			}
		}
	}
	return "", nil
}
