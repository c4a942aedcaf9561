package reviewer

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/claim.lua
	claimLua string
	//go:embed scripts/drop.lua
	dropLua string
)

// claim is one review this process holds until till (ms, Redis's clock).
type claim struct {
	shard schema.Shard
	id    string
	till  int64
}

// queue is the shards' review queues. Each script touches one shard's key
// only, so it runs on Redis Cluster too.
type queue struct {
	rdb   redis.Scripter
	claim *redis.Script
	drop  *redis.Script
}

func newQueue(rdb redis.Scripter) *queue {
	return &queue{rdb: rdb, claim: redis.NewScript(claimLua), drop: redis.NewScript(dropLua)}
}

// take claims up to n due reviews of shard s for lease ms.
func (q *queue) take(ctx context.Context, s schema.Shard, n int, leaseMS int64) ([]claim, error) {
	res, err := q.claim.Run(ctx, q.rdb, []string{schema.USDTReviewsKey(s)}, leaseMS, n).Slice()
	if err != nil {
		return nil, fmt.Errorf("claim usdt reviews of shard %s: %w", s.Tag(), err)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("claim usdt reviews of shard %s: empty reply", s.Tag())
	}
	till, ok := res[0].(int64)
	if !ok {
		return nil, fmt.Errorf("claim usdt reviews of shard %s: lease end %v", s.Tag(), res[0])
	}
	out := make([]claim, 0, len(res)-1)
	for _, v := range res[1:] {
		id, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("claim usdt reviews of shard %s: member %v", s.Tag(), v)
		}
		out = append(out, claim{shard: s, id: id, till: till})
	}
	return out, nil
}

// forget removes c's order from its queue if the claim is still ours.
func (q *queue) forget(ctx context.Context, c claim) error {
	err := q.drop.Run(ctx, q.rdb, []string{schema.USDTReviewsKey(c.shard)}, c.id, strconv.FormatInt(c.till, 10)).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("drop usdt review %s: %w", c.id, err)
	}
	return nil
}
