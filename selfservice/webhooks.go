package selfservice

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
)

// Webhooks are the use cases that change or read how the merchant is
// called back: its default callback URL, test events, and its deliveries
// with their resends (the Webhooks page, the callback part of Developers).
type Webhooks struct {
	testEvery      time.Duration
	maxResendRange time.Duration
	rdb            redis.UniversalClient
	merchants      *merchant.Store
	deliveries     *dispatcher.MerchantDeliveries
	tester         *dispatcher.Tester
	destinations   *dispatcher.Destinations
	strong         secondFactor // moving the callback needs TOTP
	audit          *audit.Log
	resends        *dispatcher.Webhooks // the one resend (dispatcher/resend.go)
	now            func() time.Time
}

// Deliveries lists the merchant's webhook deliveries that are pending,
// failing or dead, newest event first, each with its last error.
func (d *Webhooks) Deliveries(ctx context.Context, a access.Actor, f dispatcher.ListFilter) ([]dispatcher.DeliveryRow, error) {
	appid, err := may(a, access.PermWebhooksRead)
	if err != nil {
		return nil, err
	}
	rows, err := d.deliveries.List(ctx, appid, f)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// SuccessRate is the merchant's webhook attempts of the last 24 hours and
// how many were acknowledged.
func (d *Webhooks) SuccessRate(ctx context.Context, a access.Actor) (dispatcher.Rate, error) {
	appid, err := may(a, access.PermWebhooksRead)
	if err != nil {
		return dispatcher.Rate{}, err
	}
	return d.deliveries.SuccessRate(ctx, appid)
}

// Resend queues one more attempt of the merchant's order's paid webhook,
// or with refundID of that refund's, through the one resend: another
// merchant's order is 404 like a missing one, and the audit entry is
// written in the resend's own script.
func (d *Webhooks) Resend(ctx context.Context, a access.Actor, paymentID, refundID string) error {
	if _, err := may(a, access.PermWebhooksResend); err != nil {
		return err
	}
	return d.resends.Resend(ctx, dispatcher.ResendAsk{PaymentID: paymentID, RefundID: refundID, By: &a})
}

// ResendDead queues one more attempt of every dead delivery of the
// merchant whose event happened in [from, to) (at most
// dispatcher.MaxBulkResend a call), audited as one resend with its kind
// (dead) and count.
func (d *Webhooks) ResendDead(ctx context.Context, a access.Actor, from, to time.Time) (dispatcher.BulkResend, error) {
	appid, err := may(a, access.PermWebhooksResend)
	if err != nil {
		return dispatcher.BulkResend{}, err
	}
	if from.IsZero() || !to.After(from) || to.Sub(from) > d.maxResendRange {
		return dispatcher.BulkResend{}, invalid("the range must end after it starts and span at most %s", d.maxResendRange)
	}
	// One action, one name: a bulk resend is a resend (dispatcher.ActionResend)
	// of the merchant's dead deliveries, told apart by its kind and count.
	e := entry(d.now(), a, dispatcher.ActionResend, "merchant:"+appid, map[string]string{"kind": "dead",
		"note": "events from " + from.UTC().Format(time.RFC3339) + " to " + to.UTC().Format(time.RFC3339)})
	if err := e.Check(); err != nil {
		return dispatcher.BulkResend{}, err
	}
	res, err := d.deliveries.ResendDead(ctx, appid, from, to)
	result := "done"
	if err != nil {
		result = "failed" // some may be queued: the entry records how many
	}
	e.Details["count"], e.Details["result"] = strconv.Itoa(res.Queued), result
	if _, aerr := d.audit.Append(ctx, e); aerr != nil && err == nil {
		err = aerr
	}
	return res, err
}
