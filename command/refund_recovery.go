package command

import (
	"context"
	"errors"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// SweepRefunds drives the shard's refunds asked for longer than the grace
// ago and still pending (their request died between steps, or their
// provider did not answer) to an end, and reports how many it ended. Every
// step is idempotent (refund_balance.go), so a refund whose request is
// merely slow is still moved once. The TransferRecovery's sweep runs it
// beside the transfers'.
func (r *TransferRecovery) SweepRefunds(ctx context.Context, s schema.Shard) (int, error) {
	due, err := r.store.dueRefunds(ctx, s, r.now().Add(-r.grace), r.batch)
	if err != nil {
		return 0, err
	}
	ended := 0
	for _, m := range due {
		orderID, refundID, ok := schema.ParseRefundIndexMember(m)
		if !ok {
			r.log.Error("refund index entry cannot be read", "shard", int(s), "entry", m)
			continue
		}
		rf, err := r.recoverRefund(ctx, orderID, refundID)
		if rf != nil && rf.Status.Final() && platform.KindOf(err) == platform.KindInsufficientFunds {
			err = nil // ended failed: the merchant's balance did not cover it
		}
		if errors.Is(err, errRefundGone) {
			// Its order left Redis after the retention: nothing to drive.
			r.log.Error("pending refund's order is gone; needs an operator", "order", orderID, "refund", refundID)
			if err := r.store.rdb.ZRem(ctx, schema.RefundIndexKey(s), m).Err(); err != nil {
				return ended, err
			}
			continue
		}
		if err != nil {
			r.m.refunds.WithLabelValues("recovery_failed").Inc()
			r.log.Error("recover refund", "order", orderID, "refund", refundID, "err", err)
			continue
		}
		if rf.Status.Final() {
			r.m.refunds.WithLabelValues("recovered").Inc()
			r.log.Info("refund recovered", "order", orderID, "refund", refundID, "status", string(rf.Status))
			ended++
		}
	}
	return ended, nil
}

// recoverRefund drives one refund from its record.
func (r *TransferRecovery) recoverRefund(ctx context.Context, orderID, refundID string) (*schema.Refund, error) {
	rf, err := r.store.Refund(ctx, orderID, refundID)
	if err != nil {
		return nil, err
	}
	o, err := r.store.Get(ctx, orderID)
	if errors.Is(err, ErrOrderNotFound) {
		return nil, errRefundGone
	}
	if err != nil {
		return nil, err
	}
	return r.refunds.driveRefund(ctx, o, rf, nil)
}
