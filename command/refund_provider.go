package command

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// refundProvider asks o's provider to give r back and ends r by its
// answer: made, succeeded; refused (the provider said no), failed, its
// reservation released and its debit reversed. Before the call the
// merchant is debited (refundDebitProvider): a balance that does not cover
// the refund fails it and nothing is asked. A provider that cannot be
// reached leaves r pending: the recovery asks again, and the provider
// refunds once per refund id.
func (h *Refunds) refundProvider(ctx context.Context, o *schema.Order, r *schema.Refund, refunder Refunder) (*schema.Refund, error) {
	if refunder == nil {
		ask := RefundAsk{}
		var err error
		if refunder, err = h.refundKind(o, &ask); err != nil {
			if platform.KindOf(err) == platform.KindUnavailable {
				// The order's channel is not configured here (any more):
				// the refund stays pending for a process that has it.
				return nil, err
			}
			return h.failProvider(ctx, o, r, "the provider does not support refunds")
		}
	}
	if err := h.refundDebitProvider(ctx, o, r); err != nil {
		var short *shortError
		if errors.As(err, &short) {
			out, endErr := h.endRefund(ctx, r, schema.RefundFailed, "the merchant's balance does not cover the refund", "")
			if endErr != nil {
				return nil, endErr
			}
			return out, short.err
		}
		return nil, err
	}
	res, err := refunder.Refund(ctx, refundRequest(o, r))
	switch {
	case errors.Is(err, provider.ErrRefused) || errors.Is(err, provider.ErrNotFound):
		h.log.Warn("provider refused a refund", "order", o.ID, "refund", r.ID, "err", err)
		return h.failProvider(ctx, o, r, "the provider refused the refund")
	case err != nil:
		h.log.Warn("provider refund not answered; the recovery asks again", "order", o.ID, "refund", r.ID, "err", err)
		return r, nil
	}
	return h.endRefund(ctx, r, schema.RefundSucceeded, "", res.Ref)
}

// shortError is a refund the merchant's balance does not cover: err is
// what the merchant is told (422 insufficient_balance).
type shortError struct{ err error }

func (e *shortError) Error() string { return e.err.Error() }

// refundDebitProvider debits the merchant for r before the provider is
// asked: first it makes sure the order's payment is in the journal
// (payment:<orderID>, the ledger role's own transaction, idempotent), so a
// refund right after a payment finds the money, then refund:<refundID>.
func (h *Refunds) refundDebitProvider(ctx context.Context, o *schema.Order, r *schema.Refund) error {
	t, err := h.xfer.terms(ctx, o.AppID)
	if err != nil {
		return err
	}
	pay, err := journal.PaymentTx(o, t, journal.Source(o), false)
	if err != nil {
		return fmt.Errorf("refund %s: the payment: %w", r.ID, err)
	}
	if _, err := h.store.journal.Post(ctx, pay); err != nil {
		return fmt.Errorf("refund %s: post the payment: %w", r.ID, err)
	}
	tx, err := journal.RefundTx(o, r, t, journal.Source(o))
	if err != nil {
		return fmt.Errorf("refund %s: %w", r.ID, err)
	}
	res, err := h.store.journal.Post(ctx, tx)
	if err != nil {
		return fmt.Errorf("refund %s: debit the merchant: %w", r.ID, err)
	}
	if res.Outcome != journal.Refused {
		return nil
	}
	h.m.refunds.WithLabelValues("insufficient_balance").Inc()
	b, err := h.store.journal.Balance(ctx, o.AppID, o.Currency)
	if err != nil {
		return err
	}
	return &shortError{platform.Errorf(platform.KindInsufficientFunds,
		"your %s balance (%s available, %s pending) does not cover the refund of %s %s; "+
			"wait for pending payments to settle, or ask the operator", o.Currency, b.Available, b.Pending, r.Amount, o.Currency)}
}

// failProvider ends r failed after the provider's no, giving back the
// merchant's debit if it was posted (refund_reversal:<refundID>).
func (h *Refunds) failProvider(ctx context.Context, o *schema.Order, r *schema.Refund, why string) (*schema.Refund, error) {
	t, err := h.xfer.terms(ctx, o.AppID)
	if err != nil {
		return nil, err
	}
	tx, err := journal.RefundReversalTx(o, r, t, journal.Source(o))
	if err != nil {
		return nil, fmt.Errorf("refund %s: %w", r.ID, err)
	}
	if _, err := h.store.journal.Post(ctx, tx); err != nil {
		return nil, fmt.Errorf("refund %s: reverse the debit: %w", r.ID, err)
	}
	return h.endRefund(ctx, r, schema.RefundFailed, why, "")
}

// refundRequest is what the provider is told: the refund in what it
// charged. A converted charge is refunded in proportion, rounded down, so
// refunds in parts never add up to more than was charged.
func refundRequest(o *schema.Order, r *schema.Refund) provider.RefundRequest {
	charged, cur := o.Charge()
	amt := r.Amount
	if o.ChargeCurrency != "" && o.Amount > 0 {
		n := new(big.Int).Mul(big.NewInt(int64(r.Amount)), big.NewInt(int64(charged)))
		amt = schema.Amount(n.Quo(n, big.NewInt(int64(o.Amount))).Int64())
	}
	return provider.RefundRequest{OrderID: o.ID, Ref: o.ProviderRef, RefundID: r.ID,
		Amount: provider.Money{Amount: amt, Currency: cur}, Charged: provider.Money{Amount: charged, Currency: cur}, Reason: r.Reason}
}
