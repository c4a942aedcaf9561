package merchantdesk

import (
	"context"
	"strconv"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/dispatcher"
)

// Deliveries lists the merchant's webhook deliveries that are pending,
// failing or dead, newest event first, each with its last error.
func (d *Desk) Deliveries(ctx context.Context, w Who, f dispatcher.ListFilter) ([]dispatcher.DeliveryRow, error) {
	appid, err := d.may(w, access.PermWebhooksRead)
	if err != nil {
		return nil, err
	}
	rows, err := d.Webhooks.List(ctx, appid, f)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// SuccessRate is the merchant's webhook attempts of the last 24 hours and
// how many were acknowledged.
func (d *Desk) SuccessRate(ctx context.Context, w Who) (dispatcher.Rate, error) {
	appid, err := d.may(w, access.PermWebhooksRead)
	if err != nil {
		return dispatcher.Rate{}, err
	}
	return d.Webhooks.SuccessRate(ctx, appid)
}

// Resend queues one more attempt of the merchant's order's paid webhook,
// or with refundID of that refund's, through the one resend: another
// merchant's order is 404 like a missing one, and the audit entry is
// written in the resend's own script.
func (d *Desk) Resend(ctx context.Context, w Who, paymentID, refundID string) error {
	if _, err := d.may(w, access.PermWebhooksResend); err != nil {
		return err
	}
	by := actor(w)
	return d.resends.Resend(ctx, dispatcher.ResendAsk{PaymentID: paymentID, RefundID: refundID, By: &by})
}

// ResendDead queues one more attempt of every dead delivery of the
// merchant whose event happened in [from, to) (at most
// dispatcher.MaxBulkResend a call), audited as one action with its count.
func (d *Desk) ResendDead(ctx context.Context, w Who, from, to time.Time) (dispatcher.BulkResend, error) {
	appid, err := d.may(w, access.PermWebhooksResend)
	if err != nil {
		return dispatcher.BulkResend{}, err
	}
	if from.IsZero() || !to.After(from) || to.Sub(from) > d.cfg.MaxResendRange {
		return dispatcher.BulkResend{}, invalid("the range must end after it starts and span at most %s", d.cfg.MaxResendRange)
	}
	e := d.entry(w, "webhook.resend_dead", "merchant:"+appid, map[string]string{
		"note": "events from " + from.UTC().Format(time.RFC3339) + " to " + to.UTC().Format(time.RFC3339)})
	if err := e.Check(); err != nil {
		return dispatcher.BulkResend{}, err
	}
	res, err := d.Webhooks.ResendDead(ctx, appid, from, to)
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
