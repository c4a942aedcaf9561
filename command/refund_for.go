package command

import (
	"context"
	"unicode/utf8"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// RefundFor is a refund whose merchant another door already proved (the
// epay door's api.php, by its key): every check after the signature, as
// MerchantRefund makes them. The merchant's create class is spent, a
// clientRefundId must match our pattern, the order must be acct's (another
// merchant's is answered exactly like a missing one), and the refund keeps
// every rule of Refund: never more in total than was paid, a replayed
// clientRefundId answered with its refund. It returns the refund, the
// order after it, and whether clientRefundId named an earlier refund.
func (h *Refunds) RefundFor(ctx context.Context, acct *merchant.Account, ask RefundAsk) (*schema.Refund, *schema.Order, bool, error) {
	if err := h.signed.allow(ctx, acct); err != nil {
		return nil, nil, false, err
	}
	if ask.ClientRefundID != "" && !clientOrderIDPattern.MatchString(ask.ClientRefundID) {
		return nil, nil, false, invalid("clientRefundId must be 1 to 64 characters of A-Z a-z 0-9 _ . : -")
	}
	if utf8.RuneCountInString(ask.Reason) > maxRefundReason {
		return nil, nil, false, invalid("reason must be at most %d characters", maxRefundReason)
	}
	if ask.Amount <= 0 {
		return nil, nil, false, platform.Errorf(platform.KindInvalidParameter, "amount must be more than 0")
	}
	o, err := h.store.Get(ctx, ask.OrderID)
	if err != nil {
		return nil, nil, false, err
	}
	if o.AppID != acct.AppID {
		return nil, nil, false, orderNotFound(ask.OrderID)
	}
	r, replay, err := h.Refund(ctx, o, ask)
	if err != nil {
		return nil, nil, false, err
	}
	if o, err = h.store.Get(ctx, r.OrderID); err != nil {
		return nil, nil, false, err
	}
	return r, o, replay, nil
}
