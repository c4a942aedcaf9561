package payout

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Get reads payout id of appid: a 404 when it is another merchant's or
// none, so an id never tells whether it exists elsewhere.
func (s *Store) Get(ctx context.Context, appid, id string) (Payout, error) {
	p, err := s.load(ctx, id)
	if err != nil {
		return Payout{}, err
	}
	if appid != "" && p.AppID != appid {
		return Payout{}, platform.Errorf(platform.KindNotFound, "no such payout")
	}
	return p, nil
}

func (s *Store) load(ctx context.Context, id string) (Payout, error) {
	sh, _, ok := shardOf(id)
	if !ok {
		return Payout{}, platform.Errorf(platform.KindNotFound, "no such payout")
	}
	h, err := s.rdb.HGetAll(ctx, schema.PayoutKey(sh, id)).Result()
	if err != nil {
		return Payout{}, fmt.Errorf("read payout %s: %w", id, err)
	}
	if len(h) == 0 {
		return Payout{}, platform.Errorf(platform.KindNotFound, "no such payout")
	}
	return payoutFrom(id, h), nil
}

// List is appid's payouts, newest first, limit of them asked for before
// the time before (ms; 0 = now).
func (s *Store) List(ctx context.Context, appid string, before int64, limit int) ([]Payout, error) {
	limit = min(max(limit, 1), 100)
	max := "+inf"
	if before > 0 {
		max = "(" + strconv.FormatInt(before, 10)
	}
	ids, err := s.rdb.ZRevRangeByScore(ctx, schema.PayoutsKey(appid), &redis.ZRangeBy{Min: "-inf", Max: max, Count: int64(limit)}).Result()
	if err != nil {
		return nil, fmt.Errorf("list payouts: %w", err)
	}
	return s.loadAll(ctx, ids)
}

// Queue is the payouts awaiting review (Requested) or sending (Approved,
// Sending) on every shard, oldest first, up to limit per shard.
func (s *Store) Queue(ctx context.Context, review bool, limit int) ([]Payout, error) {
	var out []Payout
	for sh := range schema.Shard(schema.NumShards) {
		key := schema.PayoutSendKey(sh)
		if review {
			key = schema.PayoutReviewKey(sh)
		}
		ids, err := s.rdb.ZRange(ctx, key, 0, int64(limit)-1).Result()
		if err != nil {
			return nil, fmt.Errorf("read payout queue: %w", err)
		}
		got, err := s.loadAll(ctx, ids)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func (s *Store) loadAll(ctx context.Context, ids []string) ([]Payout, error) {
	out := make([]Payout, 0, len(ids))
	for _, id := range ids {
		p, err := s.load(ctx, id)
		if platform.KindOf(err) == platform.KindNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
