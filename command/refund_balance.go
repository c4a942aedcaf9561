package command

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/gateway/schema"
)

// A balance order's refund moves money across shards again, the other way
// round from its payment (balance_pay.go): the merchant's balance, on its
// home shard, gives the amount back to the payer's, on the payer's. The
// same saga shape keeps it exactly once:
//
//  0. reserve, on the order's shard (refund_reserve.lua): the amount, the
//     record naming payer and merchant, and the recovery index entry;
//  1. debit the merchant, once per refund (the transfer's debit script, with
//     a marker named by the refund); a balance that falls short fails the
//     refund and releases the reservation;
//  2. credit the payer, once per refund (the transfer's credit script);
//  3. finish, on the order's shard (refund_finish.lua): succeeded, the
//     refunded total, the event, out of the index.
//
// A request that dies between steps leaves the refund in the index, and
// the TransferRecovery drives it on; the markers make every repeated step a
// no-op. An order its merchant paid from its own balance (create with
// method balance) was never credited to anyone: its refund only credits
// the merchant back, and step 1 is skipped.

// Refund steps, as the test hook (afterStep) names them; they follow the
// transfer's steps.
const (
	refundReserved = 10 + iota
	refundDebited
	refundCredited
)

// afterRefund is the test hook after a refund step.
func (h *Refunds) afterRefund(step int) error { return h.xfer.after(step) }

// refundBalance runs steps 1 to 3 of r.
func (h *Refunds) refundBalance(ctx context.Context, r *schema.Refund) (*schema.Refund, error) {
	if r.Payer != r.Merchant {
		debit, err := h.refundDebit(ctx, r)
		if err != nil {
			return nil, err
		}
		if debit == "n" {
			return h.endRefund(ctx, r, schema.RefundFailed, fmt.Sprintf("the merchant's %s balance does not cover the refund", r.Currency), "")
		}
	}
	if err := h.afterRefund(refundDebited); err != nil {
		return nil, err
	}
	if err := h.refundCredit(ctx, r); err != nil {
		return nil, err
	}
	if err := h.afterRefund(refundCredited); err != nil {
		return nil, err
	}
	return h.endRefund(ctx, r, schema.RefundSucceeded, "", "")
}

// refundDebit is step 1; it returns the marker: 'd' debited, 'n' refused.
func (h *Refunds) refundDebit(ctx context.Context, r *schema.Refund) (string, error) {
	keys := []string{schema.BalanceKey(r.Merchant), schema.LedgerKey(r.Merchant), schema.RefundDebitKey(r.Merchant, r.ID)}
	m, err := h.store.xferDebit.Run(ctx, h.store.rdb, keys, r.Currency, int64(r.Amount), h.now().UnixMilli(),
		r.ID, int64(transferMemory/time.Second)).Text()
	if err != nil {
		return "", fmt.Errorf("debit merchant for refund %s: %w", r.ID, err)
	}
	return m, nil
}

// refundCredit is step 2.
func (h *Refunds) refundCredit(ctx context.Context, r *schema.Refund) error {
	keys := []string{schema.BalanceKey(r.Payer), schema.LedgerKey(r.Payer), schema.RefundCreditKey(r.Payer, r.ID)}
	err := h.store.xferCredit.Run(ctx, h.store.rdb, keys, r.Currency, int64(r.Amount), h.now().UnixMilli(),
		r.ID, int64(transferMemory/time.Second)).Err()
	if err != nil {
		return fmt.Errorf("credit payer for refund %s: %w", r.ID, err)
	}
	return nil
}
