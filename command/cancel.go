package command

import (
	"context"
	"log/slog"
	"net/netip"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Cancels is the cancel of an unpaid order, by its payer (the payment
// page's "cancel payment") or by its merchant (POST /api/order/cancel).
type Cancels struct {
	signed *signedCalls
	store  *Store
	settle *Settle
	usdt   *USDT
	log    *slog.Logger
}

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
func (h *Cancels) Cancel(ctx context.Context, id string) (*schema.Order, error) {
	o, err := h.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.Status.Live() && o.NextAction == schema.NextUSDTReview {
		return nil, platform.Errorf(platform.KindConflict, "order %s is under review and cannot be cancelled", id)
	}
	out, err := h.settle.Move(ctx, id, schema.StatusCancelled)
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

// cancelRequired are POST /api/order/cancel's required body fields, in the
// order the first missing one is named.
var cancelRequired = []string{"appid", "action", "paymentId", "sign"}

// MerchantCancel is POST /api/order/cancel's use case: the merchant cancels
// one of its own unpaid orders. The parameters are signed exactly like
// createorder's (appid, action=cancel, paymentId, optional clientip, sign)
// and checked in createorder's order, so a merchant's signing code serves
// both; then the payer's cancel: pending or ready becomes cancelled with its
// event, cancelled stays so, paid, failed or a usdt_direct order under
// review is a conflict.
func (h *Cancels) MerchantCancel(ctx context.Context, p schema.Params, ip netip.Addr) (*schema.Order, error) {
	if err := required(p, cancelRequired); err != nil {
		return nil, err
	}
	acct, err := h.signed.admit(ctx, schema.CancelForm, p, ip)
	if err != nil {
		return nil, err
	}
	if p["action"] != "cancel" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "action must be cancel")
	}
	id := p["paymentId"]
	o, err := h.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.AppID != acct.AppID { // another merchant's order is not there for this one
		return nil, orderNotFound(id)
	}
	return h.Cancel(ctx, id)
}
