package dispatcher

import (
	"context"
	"errors"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

// ActionResend is the audit action of every resend, whichever door asked.
const ActionResend = "webhook.resend"

// ResendAsk is one resend: of order PaymentID's paid webhook, or with a
// RefundID of that refund's.
type ResendAsk struct {
	PaymentID, RefundID string
	// By is who asks, and its audit entry is appended in the resend's own
	// script: a merchant's console user finds only By.AppID's deliveries,
	// an operator needs op.webhooks.resend and finds any merchant's, the
	// CLI any. Nil is the signed API, which is not audited (DESIGN.md:
	// the audit log holds the consoles' and the CLI's actions).
	By *access.Actor
	// AppID is the signed API's merchant, whose deliveries alone it finds.
	AppID string
}

// Resend queues one more attempt now, recorded as manual: a dead-lettered
// or acknowledged delivery gets exactly one, a pending one has its next
// attempt brought forward; a running dispatcher sends it at its next round.
// The merchant check and the audit entry are in the same script as the
// re-enqueue. Another merchant's delivery, or a refund of another order,
// is 404 like a missing one; an attempt running now is 409 (errors.Is
// ErrNoDelivery, ErrInFlight). A resend already queued is no error.
func (w *Webhooks) Resend(ctx context.Context, ask ResendAsk) error {
	appid, e, err := w.resendBy(ask)
	if err != nil {
		return err
	}
	out, err := w.store.requeueAudited(ctx, appid, ask.PaymentID, ask.RefundID, e)
	switch {
	case errors.Is(err, ErrNoDelivery) && ask.RefundID != "":
		return &platform.Error{Kind: platform.KindNotFound, Err: err,
			Msg: "order " + ask.PaymentID + " not found, or it has no refund " + ask.RefundID + " with a webhook delivery (refund not ended, no notify_url, or expired)"}
	case errors.Is(err, ErrNoDelivery):
		return &platform.Error{Kind: platform.KindNotFound, Err: err,
			Msg: "order " + ask.PaymentID + " not found, or it has no webhook delivery (not paid, no notify_url, or expired)"}
	case err != nil:
		return err
	case out == "in_flight":
		return &platform.Error{Kind: platform.KindConflict, Err: ErrInFlight,
			Msg: "a webhook attempt of order " + ask.PaymentID + " is in flight; ask again when it is recorded"}
	}
	return nil
}

// errResendForbidden is a role that may not resend.
var errResendForbidden = &platform.Error{Kind: platform.KindForbidden, Msg: "your role may not do this", Err: access.ErrForbidden}

// resendBy is the merchant whose delivery ask may touch ("" any) and the
// audit entry, checked before anything is written (its merchant, when
// empty, is filled in with the delivery's by requeueAudited).
func (w *Webhooks) resendBy(ask ResendAsk) (string, *audit.Entry, error) {
	a := ask.By
	if a == nil {
		if ask.AppID == "" {
			return "", nil, errResendForbidden
		}
		return ask.AppID, nil, nil
	}
	appid, details := "", map[string]string(nil)
	switch {
	case a.Realm == audit.RealmMerchant && a.AppID != "" && a.Role.Valid(access.RealmMerchant) && access.Allowed(a.Role, access.PermWebhooksResend):
		appid = a.AppID
	case a.Realm == audit.RealmOperator && a.Role.Valid(access.RealmOperator) && access.Allowed(a.Role, access.PermOpWebhooksResend),
		a.Realm == audit.RealmCLI:
		// An operator's and the CLI's entries say it was a manual resend
		// and of what, as they always did.
		details = map[string]string{"via": "manual"}
		if ask.RefundID != "" {
			details["kind"] = "refund"
		}
	default:
		return "", nil, errResendForbidden
	}
	target := "order:" + ask.PaymentID
	if ask.RefundID != "" {
		target = "refund:" + ask.RefundID
	}
	e := &audit.Entry{At: w.now().UTC(), ActorID: a.ID, ActorEmail: a.Email, Realm: a.Realm, Role: string(a.Role),
		Action: ActionResend, Target: target, AppID: appid, Source: a.Source, Details: details}
	if err := e.Check(); err != nil {
		return "", nil, err
	}
	return appid, e, nil
}
