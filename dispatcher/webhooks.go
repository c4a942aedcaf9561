package dispatcher

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Webhooks is a delivery as support reads and resends it: the gateway
// CLI's door to the dispatcher's keys, which it reaches without a running
// dispatcher, its HTTP client or its metrics. An order's paid webhook is
// named by its payment id alone, a refund's webhook by both ids.
type Webhooks struct {
	store *store
}

// NewWebhooks reads and queues deliveries in rdb.
func NewWebhooks(rdb redis.UniversalClient) *Webhooks {
	return &Webhooks{store: newStore(rdb, Defaults())}
}

// State is the delivery, or ErrNoDelivery.
func (w *Webhooks) State(ctx context.Context, paymentID, refundID string) (*Delivery, error) {
	return w.store.delivery(ctx, paymentID, refundID)
}

// Log is the delivery's attempt log, oldest first: empty for an order
// without one, ErrNoDelivery for a refund without one (Dispatcher.Log and
// RefundLog).
func (w *Webhooks) Log(ctx context.Context, paymentID, refundID string) ([]schema.WebhookAttempt, error) {
	if refundID != "" {
		if _, err := w.store.delivery(ctx, paymentID, refundID); err != nil {
			return nil, err
		}
	}
	return w.store.attempts(ctx, paymentID, refundID)
}

// Resend queues one more attempt now, recorded as manual; a running
// dispatcher sends it at its next round (Dispatcher.Resend). ErrInFlight
// while an attempt is running, ErrNoDelivery without a delivery.
func (w *Webhooks) Resend(ctx context.Context, paymentID, refundID string) error {
	return w.ResendFor(ctx, "", paymentID, refundID)
}

// ResendFor is Resend of merchant appid's own order only: another's has no
// delivery for it (the merchant's door, ResendAPI).
func (w *Webhooks) ResendFor(ctx context.Context, appid, paymentID, refundID string) error {
	return resend(ctx, w.store, appid, paymentID, refundID)
}
