package dispatcher

import (
	"context"
	"net/url"

	"github.com/paygate/gateway/schema"
)

// A refund's webhook is a delivery of its own, keyed by the refund id on
// its order's shard (deliveryOf). A refund id names no shard, so every
// read or resend of one is addressed by the order and the refund together:
// the order names the shard, and the stored parameters prove the refund is
// that order's.

// locate is the shard and delivery id of paymentID's paid webhook
// (refundID empty) or of its refund refundID's webhook; false when the ids
// cannot name a delivery.
func locate(paymentID, refundID string) (schema.Shard, string, bool) {
	shard, ok := schema.ParseOrderID(paymentID)
	if !ok {
		return 0, "", false
	}
	if refundID == "" {
		return shard, paymentID, true
	}
	return shard, refundID, schema.IsRefundID(refundID)
}

// ofOrder reports whether a delivery's stored parameters (its hash's p)
// are paymentID's: a refund of another order on the same shard is found
// under the same key layout, and must be answered like a missing one.
func ofOrder(stored, paymentID string) bool {
	form, err := storedForm(stored)
	if err != nil {
		return false
	}
	v, err := url.ParseQuery(form)
	return err == nil && v.Get("paymentId") == paymentID
}

// RefundLog is the attempt log of the webhook of refund refundID of order
// paymentID, oldest first; ErrNoDelivery when that order has no delivery
// for that refund.
func (d *Dispatcher) RefundLog(ctx context.Context, paymentID, refundID string) ([]schema.WebhookAttempt, error) {
	return d.webhooks().Log(ctx, paymentID, refundID)
}

// RefundState is the delivery of refund refundID's webhook of order
// paymentID, or ErrNoDelivery.
func (d *Dispatcher) RefundState(ctx context.Context, paymentID, refundID string) (*Delivery, error) {
	return d.webhooks().State(ctx, paymentID, refundID)
}
