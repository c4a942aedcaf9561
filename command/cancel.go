package command

import (
	"context"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Cancel is the payer's "cancel payment": a pending or ready order becomes
// cancelled, counted like any other move; cancelling again changes nothing
// and answers the order; a paid or failed order cannot be cancelled
// (conflict). The USDT amount a usdt_direct order held is given back, so
// that another payer's deposit of it is never matched to this order.
//
// A usdt_direct order under review is not the payer's to cancel: the money
// may be on its way. (A hash submitted between this check and the cancel
// leaves a cancelled order under review, which the review can still pay: a
// late payment counts.)
func (h *CreateOrder) Cancel(ctx context.Context, id string) (*schema.Order, error) {
	o, err := h.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.Status.Live() && o.NextAction == schema.NextUSDTReview {
		return nil, platform.Errorf(platform.KindConflict, "order %s is under review and cannot be cancelled", id)
	}
	out, err := h.NewSettle().Move(ctx, id, schema.StatusCancelled)
	if err != nil {
		return nil, err
	}
	if o := out.Order; o.PayableAmount != "" {
		// Release frees the amount only while this order holds it, so a
		// repeated cancel cannot free another order's amount.
		if err := h.usdt.Release(ctx, o.ID, o.PayableAmount); err != nil {
			h.log.Warn("release usdt amount of a cancelled order", "order", o.ID, "err", err)
		}
	}
	return out.Order, nil
}
