package command

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/netip"
	"time"
	"unicode/utf8"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// refundRequired are POST /api/order/refund's required body fields, in the
// order the first missing one is named.
var refundRequired = []string{"appid", "action", "paymentId", "amount", "sign"}

// maxRefundReason bounds reason like create's description.
const maxRefundReason = 256

// Refunder is an adapter whose provider family can give a payment back.
// Declared here, where it is used: an adapter without it refuses refunds.
// An error wrapping provider.ErrRefused or provider.ErrNotFound is the
// provider's no (the refund fails); any other leaves the refund pending
// for the recovery to ask again, which the provider answers once per
// RefundID.
type Refunder interface {
	Refund(ctx context.Context, r provider.RefundRequest) (provider.RefundResult, error)
}

// Refunds is a merchant's refund of a paid order: through balances at once
// for a balance order (refund_balance.go), through the provider's refund
// call otherwise (refund_provider.go).
type Refunds struct {
	signed    *signedCalls
	store     *Store
	providers *provider.Registry
	xfer      *transfers
	m         *metrics
	log       *slog.Logger
	now       func() time.Time
}

// MerchantRefund is POST /api/order/refund's use case: a JSON parameter set
// signed exactly like createorder's (appid, action=refund, paymentId,
// amount, optional reason, clientRefundId and clientip, sign), checked in
// createorder's order, then the refund of the merchant's own order. It
// returns the refund, the order after it, and whether clientRefundId named
// an earlier refund.
func (h *Refunds) MerchantRefund(ctx context.Context, p schema.Params, ip netip.Addr) (*schema.Refund, *schema.Order, bool, error) {
	if err := required(p, refundRequired); err != nil {
		return nil, nil, false, err
	}
	acct, err := h.signed.admit(ctx, schema.RefundForm, p, ip)
	if err != nil {
		return nil, nil, false, err
	}
	ask, err := parseRefund(p)
	if err != nil {
		return nil, nil, false, err
	}
	o, err := h.store.Get(ctx, ask.OrderID)
	if err != nil {
		return nil, nil, false, err
	}
	if o.AppID != acct.AppID { // another merchant's order is not there for this one
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

// parseRefund applies the business rules to a refund's parameters.
func parseRefund(p schema.Params) (RefundAsk, error) {
	a := RefundAsk{OrderID: p["paymentId"], ClientRefundID: p["clientRefundId"], Reason: p["reason"]}
	if p["action"] != "refund" {
		return a, invalid("action must be refund")
	}
	var err error
	if a.Amount, err = schema.ParseAmount(p["amount"]); err != nil {
		return a, invalid("amount %s", err)
	}
	if _, given := p["clientRefundId"]; given && !clientOrderIDPattern.MatchString(a.ClientRefundID) {
		return a, invalid("clientRefundId must be 1 to 64 characters of A-Z a-z 0-9 _ . : -")
	}
	if utf8.RuneCountInString(a.Reason) > maxRefundReason {
		return a, invalid("reason must be at most %d characters", maxRefundReason)
	}
	return a, nil
}

// Refund refunds ask.Amount of the paid order o: it reserves the amount
// (never more in total than was paid, whatever runs at once), then moves
// the money: between balances at once for a balance order, through the
// provider's refund call otherwise. It returns the refund as it stands
// (succeeded, failed, or pending when the provider could not be reached:
// the recovery asks again), and whether clientRefundId named an earlier
// refund, which is returned instead and nothing is done.
func (h *Refunds) Refund(ctx context.Context, o *schema.Order, ask RefundAsk) (*schema.Refund, bool, error) {
	ask.OrderID = o.ID
	refunder, err := h.refundKind(o, &ask)
	if err != nil {
		return nil, false, err
	}
	code, r, n, err := h.store.reserveRefund(ctx, schema.NewRefundID(rand.Text()), ask, h.now())
	if err != nil {
		return nil, false, err
	}
	switch code {
	case reserveNoOrder:
		return nil, false, orderNotFound(o.ID)
	case reserveNotPaid:
		return nil, false, platform.Errorf(platform.KindConflict, "order %s is %s; only a paid order can be refunded", o.ID, schema.Status(n))
	case reserveMismatch:
		return nil, false, platform.Errorf(platform.KindRefundMismatch, "clientRefundId %s was already used for a refund of %s", ask.ClientRefundID, r.Amount)
	case reserveExceeds:
		return nil, false, platform.Errorf(platform.KindRefundExceeded, "amount %s is more than the %s %s left to refund", ask.Amount, schema.Amount(n), o.Currency)
	case reserveReplay:
		return r, true, nil
	}
	h.m.refunds.WithLabelValues("reserved").Inc()
	if err := h.afterRefund(refundReserved); err != nil {
		return nil, false, err
	}
	// The journal prices the refund off the order as stored (its amount,
	// fee, charge and payment time), not as the caller holds it.
	if o, err = h.store.Get(ctx, o.ID); err != nil {
		return nil, false, err
	}
	r, err = h.driveRefund(ctx, o, r, refunder)
	return r, false, err
}

// refundKind decides how o's money goes back, before anything is reserved:
// a balance order between balances, a provider order through its
// channel's adapter with a refund call; any other is refused.
func (h *Refunds) refundKind(o *schema.Order, ask *RefundAsk) (Refunder, error) {
	if o.Method == schema.MethodBalance || o.PaidWithBalance {
		ask.kind = schema.RefundKindBalance
		return nil, nil
	}
	ask.kind = schema.RefundKindProvider
	if _, ok := h.providers.For(o.Method, o.Sandbox); ok {
		// The money goes back through the account it was paid to.
		a, err := channelAdapter(h.providers, o)
		if err != nil {
			return nil, err
		}
		if r, ok := a.(Refunder); ok {
			return r, nil
		}
	}
	return nil, platform.Errorf(platform.KindRefundUnsupported, "paymentMethod %s: the provider does not support refunds", o.Method)
}

// driveRefund moves the money of a reserved refund and ends it; every
// step may have run before (a retry by the recovery).
func (h *Refunds) driveRefund(ctx context.Context, o *schema.Order, r *schema.Refund, refunder Refunder) (*schema.Refund, error) {
	if r.Status.Final() {
		return r, nil
	}
	if r.Kind == schema.RefundKindBalance {
		return h.refundBalance(ctx, o, r)
	}
	return h.refundProvider(ctx, o, r, refunder)
}

// endRefund finishes r and counts how it ended.
func (h *Refunds) endRefund(ctx context.Context, r *schema.Refund, to schema.RefundStatus, why, ref string) (*schema.Refund, error) {
	out, ended, err := h.store.finishRefund(ctx, r.OrderID, r.ID, to, h.now(), why, ref)
	if errors.Is(err, errRefundGone) {
		return nil, orderNotFound(r.OrderID)
	}
	if err != nil {
		return nil, err
	}
	if ended {
		h.m.refunds.WithLabelValues(string(to)).Inc()
	}
	return out, nil
}
