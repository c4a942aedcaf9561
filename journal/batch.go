package journal

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// PostAll posts each of txs once, as Post does, in one pipeline of the
// script's EVALSHA: a ledger catching up on a backlog pays one round trip
// per batch instead of one per transaction. Each transaction is still its
// own atomic step; results[i] and errs[i] are txs[i]'s. A script Redis has
// not loaded yet (a restart, a failover) is posted again one by one, which
// loads it.
func (j *Journal) PostAll(ctx context.Context, txs []Tx) ([]Result, []error) {
	results, errs := make([]Result, len(txs)), make([]error, len(txs))
	cmds := make([]*redis.Cmd, len(txs))
	_, _ = j.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, tx := range txs {
			if errs[i] = tx.check(); errs[i] != nil {
				continue
			}
			keys, args := j.scriptArgs(schema.HomeShard(tx.AppID), tx)
			cmds[i] = j.post.EvalSha(ctx, p, keys, args...)
		}
		return nil
	})
	for i, cmd := range cmds {
		if cmd == nil {
			continue
		}
		res, err := cmd.Slice()
		switch {
		case err != nil && redis.HasErrorPrefix(err, "NOSCRIPT"):
			results[i], errs[i] = j.Post(ctx, txs[i])
			continue
		case err != nil:
			errs[i] = fmt.Errorf("post %s: %w", txs[i].Key, err)
			continue
		}
		results[i] = decodeResult(res)
		j.posted.WithLabelValues(txs[i].Kind, results[i].Outcome.String()).Inc()
	}
	return results, errs
}
