package command

import (
	"context"
	"errors"
	"math/big"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// refundProvider asks o's provider to give r back and ends r by its
// answer: made, succeeded; refused (the provider said no), failed and its
// reservation released. A provider that cannot be reached leaves r pending:
// the recovery asks again, and the provider refunds once per refund id.
func (h *Refunds) refundProvider(ctx context.Context, o *schema.Order, r *schema.Refund, refunder Refunder) (*schema.Refund, error) {
	if refunder == nil {
		ask := RefundAsk{}
		var err error
		if refunder, err = h.refundKind(o, &ask); err != nil {
			return h.endRefund(ctx, r, schema.RefundFailed, "the provider does not support refunds", "")
		}
	}
	res, err := refunder.Refund(ctx, refundRequest(o, r))
	switch {
	case errors.Is(err, provider.ErrRefused) || errors.Is(err, provider.ErrNotFound):
		h.log.Warn("provider refused a refund", "order", o.ID, "refund", r.ID, "err", err)
		return h.endRefund(ctx, r, schema.RefundFailed, "the provider refused the refund", "")
	case err != nil:
		h.log.Warn("provider refund not answered; the recovery asks again", "order", o.ID, "refund", r.ID, "err", err)
		return r, nil
	}
	return h.endRefund(ctx, r, schema.RefundSucceeded, "", res.Ref)
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
