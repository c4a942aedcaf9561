package journal

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// batchLua runs post.lua once per transaction of one home shard, inside
// one script call: KEYS are each transaction's six keys in turn, ARGV[1]
// the count, then for each transaction its argument count and arguments.
// The answer is post.lua's answer of each, in order.
var batchLua = `local function audit_hook() end
` + postLua + `
local out, k, a = {}, 0, 2
for t = 1, tonumber(ARGV[1]) do
  local keys, args, n = {}, {}, tonumber(ARGV[a])
  for i = 1, 6 do keys[i] = KEYS[k + i] end
  for i = 1, n do args[i] = ARGV[a + i] end
  k, a = k + 6, a + n + 1
  out[t] = journal_post(keys, args, audit_hook)
end
return out
`

// batchMax bounds the transactions of one script call: Redis runs a script
// alone, so a call of 200 postings holds it for a few milliseconds at most.
const batchMax = 250

// PostAll posts each of txs once, as Post does. With Redis's AOF fsynced at
// every write (DESIGN.md), what a catch-up pays for is the fsyncs, one per
// event-loop turn that wrote: so the transactions of each home shard go in
// script calls of up to 200 (all their keys share the shard's hash tag),
// and the calls in one pipeline. Each transaction is still posted once
// under its key, as its own all-or-nothing step; results[i] and errs[i]
// are txs[i]'s.
func (j *Journal) PostAll(ctx context.Context, txs []Tx) ([]Result, []error) {
	results, errs := make([]Result, len(txs)), make([]error, len(txs))
	var calls [][]int // indexes into txs, one home shard each
	open := map[schema.Shard]int{}
	for i, tx := range txs {
		if errs[i] = tx.check(); errs[i] != nil {
			continue
		}
		s := schema.HomeShard(tx.AppID)
		c, ok := open[s]
		if !ok || len(calls[c]) >= batchMax {
			c, open[s] = len(calls), len(calls)
			calls = append(calls, nil)
		}
		calls[c] = append(calls[c], i)
	}
	cmds := make([]*redis.Cmd, len(calls))
	_, _ = j.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for c, idx := range calls {
			keys, args := j.batchArgs(txs, idx)
			cmds[c] = j.batch.EvalSha(ctx, p, keys, args...)
		}
		return nil
	})
	for c, cmd := range cmds {
		res, err := cmd.Slice()
		if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
			keys, args := j.batchArgs(txs, calls[c])
			res, err = j.batch.Run(ctx, j.rdb, keys, args...).Slice()
		}
		for k, i := range calls[c] {
			results[i], errs[i] = j.batchResult(txs[i], res, k, err)
		}
	}
	return results, errs
}

func (j *Journal) batchArgs(txs []Tx, idx []int) ([]string, []any) {
	keys, args := make([]string, 0, 6*len(idx)), []any{len(idx)}
	for _, i := range idx {
		k, a := j.scriptArgs(schema.HomeShard(txs[i].AppID), txs[i])
		keys = append(keys, k...)
		args = append(append(args, len(a)), a...)
	}
	return keys, args
}

func (j *Journal) batchResult(tx Tx, res []any, k int, err error) (Result, error) {
	if err != nil {
		return Result{}, fmt.Errorf("post %s: %w", tx.Key, err)
	}
	one, ok := res[k].([]any)
	if !ok {
		return Result{}, fmt.Errorf("post %s: %v", tx.Key, strings.TrimSpace(fmt.Sprint(res[k])))
	}
	r := decodeResult(one)
	j.posted.WithLabelValues(tx.Kind, r.Outcome.String()).Inc()
	return r, nil
}
