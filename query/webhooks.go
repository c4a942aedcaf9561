package query

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// WebhookLog is the read model of action=webhooks: the webhook attempts the
// dispatcher recorded for one delivery, oldest first, and its state. A
// delivery is an order's paid webhook (deliveryID is the order id) or one
// of its refunds' (deliveryID is the refund id); both live on the order's
// shard, and a refund id names none, so orderID is always given.
type WebhookLog interface {
	Attempts(ctx context.Context, orderID, deliveryID string) ([]schema.WebhookAttempt, error)
	Delivery(ctx context.Context, orderID, deliveryID string) (*schema.WebhookState, error)
}

// Attempts reads a delivery's webhook attempts. The dispatcher keeps them
// beside the order and for as long as the order hash, so the live read model
// is the one that answers for them; a delivery not made yet has none.
func (r *RedisOrders) Attempts(ctx context.Context, orderID, deliveryID string) ([]schema.WebhookAttempt, error) {
	shard, ok := schema.ParseOrderID(orderID)
	if !ok {
		return nil, ErrNotFound
	}
	raw, err := r.rdb.LRange(ctx, schema.WebhookLogKey(shard, deliveryID), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook log of %s: %w", deliveryID, err)
	}
	return schema.DecodeWebhookLog(deliveryID, raw)
}

// Delivery reads a delivery's state: whether it is pending, delivered or
// dead-lettered and when its next attempt starts; nil when there is none.
func (r *RedisOrders) Delivery(ctx context.Context, orderID, deliveryID string) (*schema.WebhookState, error) {
	shard, ok := schema.ParseOrderID(orderID)
	if !ok {
		return nil, nil
	}
	h, err := r.rdb.HGetAll(ctx, schema.WebhookKey(shard, deliveryID)).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook of %s: %w", deliveryID, err)
	}
	return schema.WebhookStateFrom(deliveryID, h, time.Now()), nil
}

// WebhooksView is the data of action=webhooks: the paid webhook's delivery
// (null when the order has none) and its attempts, then the same for each
// of the order's refunds, oldest refund first (an empty list when none).
type WebhooksView struct {
	PaymentID string                  `json:"paymentId"`
	Delivery  *schema.WebhookState    `json:"delivery"`
	Attempts  []schema.WebhookAttempt `json:"attempts"`
	Refunds   []RefundWebhooks        `json:"refunds"`
}

// RefundWebhooks is one refund's webhook in action=webhooks: its delivery
// (null until the refund ends, or when the order has no notify_url) and
// its attempts.
type RefundWebhooks struct {
	RefundID string                  `json:"refundId"`
	Delivery *schema.WebhookState    `json:"delivery"`
	Attempts []schema.WebhookAttempt `json:"attempts"`
}

// Webhooks is action=webhooks for the authenticated merchant acct: the
// same attempt logs operators see with `gateway webhook log`. The order must
// be the merchant's; another merchant's order is answered like a missing one.
// An archived order is found too, with empty logs: they expired with the
// order's Redis hash.
func (q *Orders) Webhooks(ctx context.Context, acct *merchant.Account, args Args) (WebhooksView, error) {
	if q.webhookLog == nil {
		return WebhooksView{}, platform.Errorf(platform.KindUnavailable, "webhook logs are not served by this node")
	}
	o, err := q.own(ctx, acct, args)
	if err != nil {
		return WebhooksView{}, err
	}
	state, attempts, err := q.deliveryOf(ctx, o.ID, o.ID)
	if err != nil {
		return WebhooksView{}, err
	}
	refunds, err := q.refundWebhooks(ctx, o)
	if err != nil {
		return WebhooksView{}, err
	}
	return WebhooksView{PaymentID: o.ID, Delivery: state, Attempts: attempts, Refunds: refunds}, nil
}

// refundWebhooks are the webhooks of o's refunds. The refunds come from the
// order's own refund list, so only its refunds are read; none without a
// refund reader or when the order is not paid (only a paid order has
// refunds).
func (q *Orders) refundWebhooks(ctx context.Context, o *schema.Order) ([]RefundWebhooks, error) {
	out := []RefundWebhooks{}
	if q.refunds == nil || o.Status != schema.StatusPaid {
		return out, nil
	}
	rs, err := q.refunds.Refunds(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		state, attempts, err := q.deliveryOf(ctx, o.ID, r.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, RefundWebhooks{RefundID: r.ID, Delivery: state, Attempts: attempts})
	}
	return out, nil
}

// deliveryOf reads one delivery of order orderID: its state and attempts.
func (q *Orders) deliveryOf(ctx context.Context, orderID, deliveryID string) (*schema.WebhookState, []schema.WebhookAttempt, error) {
	attempts, err := q.webhookLog.Attempts(ctx, orderID, deliveryID)
	if err != nil {
		return nil, nil, err
	}
	state, err := q.webhookLog.Delivery(ctx, orderID, deliveryID)
	if err != nil {
		return nil, nil, err
	}
	return state, attempts, nil
}
