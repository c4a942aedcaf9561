package command

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// A balance order's refund moves money across shards again, the other way
// round from its payment (balance_pay.go): the merchant's balance, on its
// home shard, gives the amount back to the payer's, on the payer's. Each
// money step is a journal transaction under its own key, so a repeat moves
// nothing:
//
//  0. reserve, on the order's shard (refund_reserve.lua): the amount, the
//     record naming payer and merchant, and the recovery index entry;
//  1. debit the merchant (refund:<refundID>, journal.RefundTx into
//     transit): available first, then pending; a balance that falls short
//     (and terms that allow no negative balance) fails the refund and
//     releases the reservation;
//  2. credit the payer (balance_refund:<refundID>, transit to available);
//  3. finish, on the order's shard (refund_finish.lua): succeeded, the
//     refunded total, the event, out of the index.
//
// A request that dies between steps leaves the refund in the index, and
// the TransferRecovery drives it on. An order its merchant paid from its
// own balance (create with method balance) went to platform:spent: its
// refund only credits the merchant back from there (less the fee's share
// unless its terms return it; journal.OwnBalanceRefundTx), and step 1 is
// skipped.

// Refund steps, as the test hook (afterStep) names them; they follow the
// transfer's steps.
const (
	refundReserved = 10 + iota
	refundDebited
	refundCredited
)

// afterRefund is the test hook after a refund step.
func (h *Refunds) afterRefund(step int) error { return h.xfer.after(step) }

// refundBalance runs steps 1 to 3 of r, a refund of order o.
func (h *Refunds) refundBalance(ctx context.Context, o *schema.Order, r *schema.Refund) (*schema.Refund, error) {
	tx := journal.BalanceRefundTx(r.Payer, r.ID, r.Currency, r.Amount, journal.Transit, h.now())
	if r.Payer != r.Merchant {
		res, err := h.refundDebit(ctx, o, r)
		if err != nil {
			return nil, err
		}
		if res.Outcome == journal.Refused {
			return h.endRefund(ctx, r, schema.RefundFailed, fmt.Sprintf("the merchant's %s balance does not cover the refund", r.Currency), "")
		}
	} else {
		t, err := h.xfer.terms(ctx, o.AppID)
		if err != nil {
			return nil, err
		}
		if tx, err = journal.OwnBalanceRefundTx(o, r, t, h.now()); err != nil {
			return nil, fmt.Errorf("refund %s: %w", r.ID, err)
		}
	}
	if err := h.afterRefund(refundDebited); err != nil {
		return nil, err
	}
	if _, err := h.store.journal.Post(ctx, tx); err != nil {
		return nil, fmt.Errorf("credit payer for refund %s: %w", r.ID, err)
	}
	if err := h.afterRefund(refundCredited); err != nil {
		return nil, err
	}
	return h.endRefund(ctx, r, schema.RefundSucceeded, "", "")
}

// refundDebit is step 1, the merchant's side: refund:<refundID> under the
// merchant's terms.
func (h *Refunds) refundDebit(ctx context.Context, o *schema.Order, r *schema.Refund) (journal.Result, error) {
	t, err := h.xfer.terms(ctx, o.AppID)
	if err != nil {
		return journal.Result{}, err
	}
	tx, err := journal.RefundTx(o, r, t, journal.Transit)
	if err != nil {
		return journal.Result{}, fmt.Errorf("debit merchant for refund %s: %w", r.ID, err)
	}
	res, err := h.store.journal.Post(ctx, tx)
	if err != nil {
		return journal.Result{}, fmt.Errorf("debit merchant for refund %s: %w", r.ID, err)
	}
	return res, nil
}
