package command

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TransferRecovery finishes balance transfers whose request died between
// steps (balance_pay.go), and refunds likewise (SweepRefunds): every transfer claimed longer than grace ago and
// not finished is driven on from wherever it stopped. Every step is
// idempotent, so a transfer whose request is merely slow, or which two
// processes' recoveries find at once, is still paid and credited once.
// Every command process runs one.
type TransferRecovery struct {
	xfer     *transfers
	refunds  *Refunds
	store    *Store
	m        *metrics
	now      func() time.Time
	interval time.Duration
	grace    time.Duration
	batch    int64
	log      *slog.Logger
}

// With is r sweeping every interval for transfers older than grace, which
// should be well above a transfer's normal duration (a few round trips), so
// that the recovery rarely races a live request; New's pace is 5 s and 30 s.
func (r *TransferRecovery) With(interval, grace time.Duration, log *slog.Logger) *TransferRecovery {
	if interval <= 0 {
		interval = defaultRecoveryInterval
	}
	c := *r
	c.interval, c.grace, c.log = interval, grace, log
	return &c
}

// Run sweeps until ctx ends.
func (r *TransferRecovery) Run(ctx context.Context) {
	platform.Every(ctx, r.interval, func(ctx context.Context) {
		for _, s := range schema.AllShards() {
			if _, err := r.Sweep(ctx, s); err != nil && ctx.Err() == nil {
				r.log.Warn("recover balance transfers", "shard", int(s), "err", err)
			}
			if _, err := r.SweepRefunds(ctx, s); err != nil && ctx.Err() == nil {
				r.log.Warn("recover refunds", "shard", int(s), "err", err)
			}
		}
	})
}

// Sweep drives the shard's due transfers to an end and reports how many it
// ended. One that cannot be ended now stays for the next sweep.
func (r *TransferRecovery) Sweep(ctx context.Context, s schema.Shard) (int, error) {
	now := r.now()
	key := schema.TransfersKey(s)
	due, err := r.store.rdb.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(now.Add(-r.grace).UnixMilli(), 10), Count: r.batch,
	}).Result()
	if err != nil {
		return 0, err
	}
	ended := 0
	for _, z := range due {
		id, _ := z.Member.(string)
		if age := now.Sub(time.UnixMilli(int64(z.Score))); age > 24*time.Hour {
			r.log.Error("balance transfer open for over a day", "order", id, "age", age.String())
		}
		outcome, err := r.recover(ctx, s, id)
		if err != nil {
			r.m.recoveries.WithLabelValues("failed").Inc()
			r.log.Error("recover balance transfer", "order", id, "err", err)
			continue
		}
		r.m.recoveries.WithLabelValues(outcome).Inc()
		r.log.Info("balance transfer recovered", "order", id, "outcome", outcome)
		ended++
	}
	return ended, nil
}

// recover drives one transfer and names how it ended.
func (r *TransferRecovery) recover(ctx context.Context, s schema.Shard, id string) (string, error) {
	x, err := r.xfer.loadTransfer(ctx, s, id)
	if err != nil {
		return "", err
	}
	if x == nil {
		// The claim is gone (released by its request just now): only the
		// index entry is left.
		return claimGone, r.xfer.xferFinish(ctx, &transfer{orderID: id, shard: s}, claimGone)
	}
	_, err = r.xfer.drive(ctx, x)
	if k := platform.KindOf(err); k == platform.KindInsufficientFunds || k == platform.KindConflict {
		return x.state, nil // released or refunded: ended all the same
	}
	if err != nil {
		return "", err
	}
	return x.state, nil
}
