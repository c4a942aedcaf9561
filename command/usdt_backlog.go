package command

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// The backlog reads what the review scripts keep per shard (the review
// queue and the backlog index, schema.USDTDeskKey) and never scans keys, so
// it stays a handful of round trips however many orders Redis holds.

// USDTBacklog is what waits for the administrator: the orders waiting for a
// decision or whose review failed, and each order's review decisions. The
// administrator's decisions themselves are USDTReview's. (Not a "queue":
// that is the reviewer's schedule, schema.USDTReviewsKey, which state all
// reads as well.)
type USDTBacklog struct {
	store *Store
}

// NewUSDTBacklog reads the backlog over store (the CLI's door; a command
// process has UseCases.Backlog).
func NewUSDTBacklog(store *Store) *USDTBacklog { return &USDTBacklog{store: store} }

// Backlog states of USDTBacklog.Reviews.
const (
	BacklogWaiting = "waiting" // waiting for an administrator
	BacklogFailed  = "failed"  // the review rejected the hash; the order is still live
	BacklogAll     = "all"     // in the review queue, or waiting
)

// History lists order id's review decisions, oldest first; none for an
// order never reviewed (or gone past its retention).
func (r *USDTBacklog) History(ctx context.Context, id string) ([]usdt.Decision, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, orderNotFound(id)
	}
	raw, err := r.store.rdb.LRange(ctx, schema.OrderHistoryKey(shard, id), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read review history of %s: %w", id, err)
	}
	out := make([]usdt.Decision, 0, len(raw))
	for _, s := range raw {
		var d usdt.Decision
		if err := json.Unmarshal([]byte(s), &d); err != nil {
			return nil, fmt.Errorf("review history of %s: %w", id, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Reviews lists the orders of a backlog state, oldest first: waiting (for an
// administrator), failed (rejected, still live) or all (in any shard's
// review queue, and waiting). Backlog entries whose order left Redis (past
// its retention) are dropped from the index on the way: an order hash
// never comes back, so that removal cannot race a decision.
func (r *USDTBacklog) Reviews(ctx context.Context, state string) ([]*schema.Order, error) {
	if state != BacklogWaiting && state != BacklogFailed && state != BacklogAll {
		return nil, platform.Errorf(platform.KindInvalidParameter, "state %q: want waiting, failed or all", state)
	}
	ids, err := r.backlogIDs(ctx, state == BacklogAll)
	if err != nil {
		return nil, err
	}
	orders, err := r.orders(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []*schema.Order
	for _, o := range orders {
		waiting := o.Review == usdt.OutcomeWaiting
		failed := o.Review == usdt.OutcomeRejected && o.Status.Live()
		queued := o.NextAction == schema.NextUSDTReview && o.Status != schema.StatusPaid
		if state == BacklogWaiting && waiting || state == BacklogFailed && failed || state == BacklogAll && (waiting || queued) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *schema.Order) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// backlogIDs reads every shard's backlog index, and its review queue too.
func (r *USDTBacklog) backlogIDs(ctx context.Context, queues bool) ([]string, error) {
	var cmds []*redis.StringSliceCmd
	_, err := r.store.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, s := range schema.AllShards() {
			cmds = append(cmds, p.ZRange(ctx, schema.USDTDeskKey(s), 0, -1))
			if queues {
				cmds = append(cmds, p.ZRange(ctx, schema.USDTReviewsKey(s), 0, -1))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read usdt backlog: %w", err)
	}
	var ids []string
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, id := range c.Val() {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// orders reads ids in one pipeline; those gone leave the backlog index.
func (r *USDTBacklog) orders(ctx context.Context, ids []string) ([]*schema.Order, error) {
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err := r.store.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			shard, _ := schema.ParseOrderID(id)
			cmds[i] = p.HGetAll(ctx, schema.OrderKey(shard, id))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read usdt backlog orders: %w", err)
	}
	var out []*schema.Order
	for i, c := range cmds {
		if len(c.Val()) == 0 {
			shard, _ := schema.ParseOrderID(ids[i])
			if err := r.store.rdb.ZRem(ctx, schema.USDTDeskKey(shard), ids[i]).Err(); err != nil {
				return nil, fmt.Errorf("trim usdt backlog: %w", err)
			}
			continue
		}
		o, err := schema.OrderFromHash(ids[i], c.Val())
		if err != nil {
			return nil, err
		}
		out = append(out, &o)
	}
	return out, nil
}
