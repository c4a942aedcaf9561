package query

import (
	"context"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// WebhookLog is the read model of action=webhooks: the webhook attempts the
// dispatcher recorded for one order, oldest first.
type WebhookLog interface {
	Attempts(ctx context.Context, id string) ([]schema.WebhookAttempt, error)
	Delivery(ctx context.Context, id string) (*schema.WebhookState, error)
}

// Attempts reads an order's webhook attempts. The dispatcher keeps them
// beside the order and for as long as the order hash, so the live read model
// is the one that answers for them; an order without a webhook has none.
func (r *RedisOrders) Attempts(ctx context.Context, id string) ([]schema.WebhookAttempt, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, ErrNotFound
	}
	raw, err := r.rdb.LRange(ctx, schema.WebhookLogKey(shard, id), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook log of %s: %w", id, err)
	}
	return schema.DecodeWebhookLog(id, raw)
}

// Delivery reads an order's webhook delivery state: whether it is pending,
// delivered or dead-lettered and when its next attempt starts; nil when
// the order has none.
func (r *RedisOrders) Delivery(ctx context.Context, id string) (*schema.WebhookState, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, nil
	}
	h, err := r.rdb.HGetAll(ctx, schema.WebhookKey(shard, id)).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook of %s: %w", id, err)
	}
	return schema.WebhookStateFrom(id, h, time.Now()), nil
}

// WebhooksView is the data of action=webhooks: the delivery (null when the
// order has none) and its attempts.
type WebhooksView struct {
	PaymentID string                  `json:"paymentId"`
	Delivery  *schema.WebhookState    `json:"delivery"`
	Attempts  []schema.WebhookAttempt `json:"attempts"`
}

// webhooks serves action=webhooks for the authenticated merchant acct: the
// same attempt log operators see with `gateway webhook log`. The order must
// be the merchant's; another merchant's order is answered like a missing one.
// An archived order is found too, with an empty log: it expired with the
// order's Redis hash.
func (q *Orders) webhooks(c *fiber.Ctx, acct *merchant.Account) error {
	if q.webhookLog == nil {
		return platform.Errorf(platform.KindUnavailable, "webhook logs are not served by this node")
	}
	o, err := q.own(c, acct)
	if err != nil {
		return err
	}
	attempts, err := q.webhookLog.Attempts(c.UserContext(), o.ID)
	if err != nil {
		return err
	}
	state, err := q.webhookLog.Delivery(c.UserContext(), o.ID)
	if err != nil {
		return err
	}
	return platform.OK(c, WebhooksView{PaymentID: o.ID, Delivery: state, Attempts: attempts})
}
