package command

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

//go:embed scripts/usdt_review.lua
var usdtReviewLua string

var usdtReviewScript = redis.NewScript(schema.OrderLua() + usdtReviewLua)

// USDTReview applies the outcomes of usdt_direct reviews to orders: the
// reviewer role's and the administrator's (USDTBacklog lists what waits for
// them). Each outcome is one script on the order's shard that changes the
// order, emits its event, takes it out of the review queue and appends the
// decision to the order's history, so a decision is never half applied and
// never lost.
type USDTReview struct {
	store  *Store
	moves  *prometheus.CounterVec // nil where no metrics are kept (the CLI)
	now    func() time.Time
	window time.Duration // an attached order's review window; 0 is the default
}

// NewUSDTReview decides over store, for a process that serves nothing (the
// CLI's USDT reviews, a reviewer-only process); a command process uses
// UseCases.Review, which also counts the moves.
func NewUSDTReview(store *Store) *USDTReview { return &USDTReview{store: store, now: time.Now} }

// WithClock makes r decide by now (a reviewer process's configured clock).
func (r *USDTReview) WithClock(now platform.Clock) *USDTReview {
	r.now = now.Now
	return r
}

// Approve pays order id with the transfer hash: only while hash is the
// order's transaction hash under review (automatic, or waiting for an
// administrator), else a conflict. The order becomes paid as any paid
// order does (completion time, paid event, webhook), even if it was
// cancelled meanwhile: a late payment counts. Approving again answers the
// paid order.
func (r *USDTReview) Approve(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return r.decide(ctx, id, hash, usdt.OutcomeApproved, d)
}

// Reject refuses hash for order id, giving d.Reason (the payer sees it as
// Order.ReviewReason): the order goes back to awaiting a transfer (next
// action usdt_direct_pay) until it expires. The hash leaves the order and
// its reservation is given back: the transfer is not this order's, and the
// order it pays must still be able to claim it. A paid order cannot be
// rejected (conflict). Rejecting again answers the order.
func (r *USDTReview) Reject(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	if d.Reason == "" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "a rejection needs its reason")
	}
	return r.decide(ctx, id, hash, usdt.OutcomeRejected, d)
}

// Escalate leaves order id to an administrator (review waiting, d.Reason
// saying why): out of the review queue, and out of the expiry index, so it
// is not cancelled while it waits.
func (r *USDTReview) Escalate(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return r.decide(ctx, id, hash, usdt.OutcomeWaiting, d)
}

// Reschedule makes order id due again at due in its shard's review queue
// (too few confirmations, a backend down). An order that left the queue
// (decided meanwhile) is a conflict, and is not put back.
func (r *USDTReview) Reschedule(ctx context.Context, id string, due time.Time) error {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return orderNotFound(id)
	}
	key := schema.USDTReviewsKey(shard)
	z := redis.Z{Score: float64(due.UnixMilli()), Member: id}
	if err := r.store.rdb.ZAddArgs(ctx, key, redis.ZAddArgs{XX: true, Members: []redis.Z{z}}).Err(); err != nil {
		return fmt.Errorf("reschedule usdt review of %s: %w", id, err)
	}
	err := r.store.rdb.ZScore(ctx, key, id).Err()
	if errors.Is(err, redis.Nil) {
		return platform.Errorf(platform.KindConflict, "order %s is not in the review queue", id)
	}
	if err != nil {
		return fmt.Errorf("reschedule usdt review of %s: %w", id, err)
	}
	return nil
}

// Order reads usdt_direct order id; any other order is not found.
func (r *USDTReview) Order(ctx context.Context, id string) (*schema.Order, error) {
	o, err := r.store.Get(ctx, id)
	if platform.KindOf(err) == platform.KindNotFound || (err == nil && o.Method != schema.MethodUSDTDirect) {
		return nil, platform.Errorf(platform.KindNotFound, "no usdt_direct order %s", id)
	}
	return o, err
}

// decide checks what can be checked before the script (the hash's form
// and whom it is reserved for) and runs it.
func (r *USDTReview) decide(ctx context.Context, id, hash, outcome string, d usdt.Decision) (*schema.Order, error) {
	if d.By == "" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "a decision names who made it")
	}
	o, err := r.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	tx, err := normaliseTxHash(o.Network, hash)
	if err != nil {
		return nil, err
	}
	if outcome == usdt.OutcomeApproved {
		if err := r.claimFor(ctx, o, tx); err != nil {
			return nil, err
		}
	}
	now := r.now()
	d.Outcome, d.Hash = outcome, tx
	if d.At.IsZero() {
		d.At = now
	}
	d.At = d.At.UTC()
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	code, why, err := r.store.reviewUSDT(ctx, id, outcome, tx, d.Reason, d.Finding, raw, now, now.Add(r.store.TTL(schema.MethodUSDTDirect)))
	if err != nil {
		return nil, err
	}
	if code == 0 {
		return nil, refusedReview(o, tx, outcome, why)
	}
	if code == 1 && outcome == usdt.OutcomeApproved && r.moves != nil {
		r.moves.WithLabelValues(schema.StatusPaid.String()).Inc()
	}
	if outcome == usdt.OutcomeRejected {
		// The transfer is not this order's: its hash is free for the order
		// it pays. A failed release is repaired by the next claim, which
		// takes over a reservation whose order no longer holds the hash.
		if err := releaseTx(context.WithoutCancel(ctx), r.store.rdb, o.Network, tx, id); err != nil {
			return nil, err
		}
	}
	return r.store.Get(ctx, id)
}

// claimFor makes sure the hash an approval pays o with is reserved for o
// (it is, unless a rival claim raced o's submit): a hash another order
// holds pays only that order.
func (r *USDTReview) claimFor(ctx context.Context, o *schema.Order, tx string) error {
	if _, err := claimTx(ctx, r.store.rdb, o.Network, tx, o.ID); err != nil {
		if isKind(err, platform.KindConflict) {
			return platform.Errorf(platform.KindConflict, "hash already used: transaction %s is held by another order", tx)
		}
		return err
	}
	return nil
}

// refusedReview says why an outcome did not apply to o (as read before).
func refusedReview(o *schema.Order, tx, outcome, why string) error {
	switch why {
	case "paid":
		return platform.Errorf(platform.KindConflict, "order %s is paid already", o.ID)
	case "hash":
		return platform.Errorf(platform.KindConflict, "order %s is not under review for transaction %s", o.ID, tx)
	}
	return platform.Errorf(platform.KindConflict, "order %s is not under review and cannot be %s", o.ID, outcome)
}

// reviewUSDT runs usdt_review.lua: code 1 applied, 2 a repeat, 0 refused
// for why. finding (a rejection's underpaid or overpaid) goes on the
// outcome's event.
func (s *Store) reviewUSDT(ctx context.Context, id, outcome, tx, reason, finding string, record []byte, at, expireAt time.Time) (code int64, why string, err error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return 0, "", orderNotFound(id)
	}
	keys := []string{schema.OrderKey(shard, id), schema.EventsKey(shard), schema.ExpiryKey(shard),
		schema.USDTReviewsKey(shard), schema.USDTDeskKey(shard), schema.OrderHistoryKey(shard, id)}
	res, err := usdtReviewScript.Run(ctx, s.rdb, keys, outcome, tx, at.UnixMilli(), record, reason,
		int64(s.retention/time.Second), schema.ClientOrderKeyPrefix(shard), schema.NextUSDTReview, schema.NextUSDTDirectPay,
		string(schema.EventFor(schema.StatusPaid)), string(schema.EventChanged), expireAt.UnixMilli(),
		schema.StatusCountKeyPrefix(shard), schema.ClientOrdersKeyPrefix(shard), schema.PackOrderID(id), finding).Slice()
	if err != nil {
		return 0, "", fmt.Errorf("usdt review %s of order %s: %w", outcome, id, err)
	}
	code, _ = res[0].(int64)
	if code == -1 {
		return 0, "", orderNotFound(id)
	}
	if len(res) > 1 {
		why, _ = res[1].(string)
	}
	return code, why, nil
}

// txHolder is the order hash tx on network is reserved for, "" for none.
func txHolder(ctx context.Context, rdb redis.UniversalClient, network, tx string) (string, error) {
	holder, err := rdb.Get(ctx, schema.USDTTxKey(network, tx)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("read usdt transaction hash: %w", err)
	}
	return holder, nil
}
