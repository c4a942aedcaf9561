package command

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/expiry_next.lua
	expiryNextLua    string
	expiryNextScript = redis.NewScript(expiryNextLua)
	//go:embed scripts/expiry_trim.lua
	expiryTrimLua    string
	expiryTrimScript = redis.NewScript(expiryTrimLua)
)

// expiryLookback is how far back a shard's first sweep (no cursor yet)
// looks for buckets: orders are only bucketed by processes that also sweep
// every second, so a bucket older than the first sweep cannot exist, and
// an hour is a wide margin. It is walked second by second (an EXISTS
// each) in one burst at the first start on a new Redis: 24 hours made that
// 1.4 M EXISTS, a second or two of Redis CPU that showed in the bench's
// createorder phase; an hour is 57,600.
const expiryLookback = time.Hour

// expiryProbe bounds the seconds one script call looks at, so a sweep
// after a long outage advances in short steps.
const expiryProbe = 3600

// sweepBuckets cancels the unpaid orders of the shard's due expiry
// buckets, at most budget ids a round, and reports how many it cancelled.
// Each bucket is read, its orders moved one by one (a repeat is a no-op),
// then the ids read are dropped: a process that dies in between leaves them
// for the next sweep, never an order unswept.
func (e *Expirer) sweepBuckets(ctx context.Context, s schema.Shard, now time.Time, budget int64) (int, error) {
	last := now.UnixMilli() / 1000
	start := strconv.FormatInt(last-int64(expiryLookback/time.Second), 10)
	cancelled := 0
	for budget > 0 {
		res, err := expiryNextScript.Run(ctx, e.rdb, []string{schema.ExpiryCursorKey(s)},
			schema.ExpiryBucketPrefix(s), last, start, expiryProbe, budget).Slice()
		if err != nil {
			return cancelled, fmt.Errorf("next expiry bucket of shard %d: %w", s, err)
		}
		sec, _ := res[0].(int64)
		if sec == 0 {
			if e.caughtUp(ctx, s, last) {
				return cancelled, nil
			}
			continue
		}
		ids := res[1:]
		n, err := e.expireBucket(ctx, ids, now)
		cancelled += n
		if err != nil {
			return cancelled, err
		}
		lastID, _ := ids[len(ids)-1].(string)
		err = expiryTrimScript.Run(ctx, e.rdb, []string{schema.ExpiryBucketKey(s, sec)}, len(ids), lastID).Err()
		if err != nil {
			return cancelled, fmt.Errorf("trim expiry bucket %d of shard %d: %w", sec, s, err)
		}
		budget -= int64(len(ids))
	}
	return cancelled, nil
}

// caughtUp reports whether the shard's cursor reached the last due second.
func (e *Expirer) caughtUp(ctx context.Context, s schema.Shard, last int64) bool {
	cur, err := e.rdb.Get(ctx, schema.ExpiryCursorKey(s)).Int64()
	return err != nil || cur >= last
}

// expireBucket cancels what is still unpaid among a due bucket's ids.
func (e *Expirer) expireBucket(ctx context.Context, ids []any, now time.Time) (int, error) {
	cancelled := 0
	for _, v := range ids {
		id, _ := v.(string)
		moved, err := e.settle.store.ExpireBucketed(ctx, id, now)
		if err != nil && !errors.Is(err, ErrOrderNotFound) {
			return cancelled, err
		}
		if moved {
			cancelled++
			e.settle.m.moves.WithLabelValues(schema.StatusCancelled.String()).Inc()
		}
	}
	return cancelled, nil
}
