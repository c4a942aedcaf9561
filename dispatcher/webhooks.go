package dispatcher

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Webhooks is a delivery as support reads and resends it: the gateway
// CLI's door to the dispatcher's keys, which it reaches without a running
// dispatcher, its HTTP client or its metrics. An order's paid webhook is
// named by its payment id alone, a refund's webhook by both ids. Its
// Resend (resend.go) is the one resend every door calls.
type Webhooks struct {
	store *store
	now   func() time.Time
}

// NewWebhooks reads and queues deliveries in rdb.
func NewWebhooks(rdb redis.UniversalClient) *Webhooks {
	return &Webhooks{store: newStore(rdb, Defaults()), now: time.Now}
}

// WithClock is w stamping its audit entries with now's time.
func (w *Webhooks) WithClock(now func() time.Time) *Webhooks {
	return &Webhooks{store: w.store, now: now}
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
