package command

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Expirer cancels unpaid orders once they pass their time to live
// (DESIGN.md: pending/ready -> cancelled on expiry), through the same
// Settle path as every other outcome, so the cancellation is an event, the
// clientOrderId is freed and the order leaves Redis after its retention.
// Every command process runs one; two sweeping the same order is harmless,
// the second move is a no-op.
type Expirer struct {
	settle *Settle
	rdb    redis.UniversalClient
	every  time.Duration
	batch  int64
	log    *slog.Logger
}

// NewExpirer sweeps every interval, at most batch orders a shard a round.
func (s *Settle) NewExpirer(rdb redis.UniversalClient, every time.Duration, log *slog.Logger) *Expirer {
	if every <= 0 {
		every = time.Second
	}
	return &Expirer{settle: s, rdb: rdb, every: every, batch: 500, log: log}
}

// Run sweeps until ctx ends.
func (e *Expirer) Run(ctx context.Context) {
	platform.Every(ctx, e.every, func(ctx context.Context) {
		for _, s := range schema.AllShards() {
			if _, err := e.Sweep(ctx, s); err != nil && ctx.Err() == nil {
				e.log.Warn("expire orders", "shard", int(s), "err", err)
			}
		}
	})
}

// Sweep cancels the shard's orders that are due, those of its expiry index
// and then those of its due expiry buckets, at most batch of each a round,
// and reports how many it cancelled.
func (e *Expirer) Sweep(ctx context.Context, s schema.Shard) (int, error) {
	now := e.settle.now()
	n, err := e.sweepIndex(ctx, s, now)
	if err != nil {
		return n, err
	}
	m, err := e.sweepBuckets(ctx, s, now, e.batch)
	return n + m, err
}

// sweepIndex cancels the due orders of the shard's expiry index. An order
// that became final meanwhile just leaves the index; one whose expiry
// moved later meanwhile (put under review) stays in it.
func (e *Expirer) sweepIndex(ctx context.Context, s schema.Shard, now time.Time) (int, error) {
	key := schema.ExpiryKey(s)
	ids, err := e.rdb.ZRangeByScore(ctx, key, &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10), Count: e.batch,
	}).Result()
	if err != nil {
		return 0, err
	}
	cancelled := 0
	for _, id := range ids {
		moved, due, err := e.settle.store.Expire(ctx, id, now)
		if err != nil && !errors.Is(err, ErrOrderNotFound) {
			return cancelled, err
		}
		if !due {
			continue
		}
		if moved {
			cancelled++
			e.settle.m.moves.WithLabelValues(schema.StatusCancelled.String()).Inc()
			continue
		}
		// Paid, failed, gone: nothing to cancel, and nothing to index.
		if err := e.rdb.ZRem(ctx, key, id).Err(); err != nil {
			return cancelled, err
		}
	}
	return cancelled, nil
}
