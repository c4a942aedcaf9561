package operator

import (
	"context"
	"errors"
	"time"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/platform"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
)

// Resender queues one more webhook attempt of an order's paid webhook, or
// with a refundID of that refund's (a *dispatcher.Webhooks).
type Resender interface {
	Resend(ctx context.Context, paymentID, refundID string) error
}

// OrderReader reads an order (a *command.Store).
type OrderReader interface {
	Get(ctx context.Context, id string) (*schema.Order, error)
}

// Webhooks resends a merchant's webhooks for an operator (support may).
type Webhooks struct {
	d      Resender
	orders OrderReader
	log    Auditor
	now    func() time.Time
}

// NewWebhooks wraps the dispatcher's resend and the order store (to name the
// merchant in the audit entry).
func NewWebhooks(d Resender, orders OrderReader, log Auditor) *Webhooks {
	return &Webhooks{d: d, orders: orders, log: log, now: time.Now}
}

// Resend queues one more attempt of the order's paid webhook, or with a
// refundID of that refund's; a running dispatcher sends it now.
func (w *Webhooks) Resend(ctx context.Context, actor access.Actor, paymentID, refundID string) error {
	if err := allow(actor, access.PermOpWebhooksResend); err != nil {
		return err
	}
	d := map[string]string{"via": "manual"}
	target := "order:" + paymentID
	if refundID != "" {
		target, d["kind"] = "refund:"+refundID, "refund"
	}
	e, err := checked(entry(w.now(), actor, "webhook.resend", target, w.appOf(ctx, paymentID), d))
	if err != nil {
		return err
	}
	err = w.d.Resend(ctx, paymentID, refundID)
	switch {
	case errors.Is(err, dispatcher.ErrNoDelivery):
		return platform.Errorf(platform.KindNotFound, "no webhook delivery of %s to resend", paymentID)
	case errors.Is(err, dispatcher.ErrInFlight):
		return platform.Errorf(platform.KindConflict, "an attempt is in flight now; look again in a moment")
	case err != nil:
		return err
	}
	return record(ctx, w.log, e)
}

// appOf names the order's merchant in the entry, so its owner reads it
// too; an order past its retention (its delivery may outlive it) is logged
// without one rather than refused.
func (w *Webhooks) appOf(ctx context.Context, id string) string {
	if o, err := w.orders.Get(ctx, id); err == nil {
		return o.AppID
	}
	return ""
}
