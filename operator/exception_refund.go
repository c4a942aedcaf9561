package operator

import (
	"context"
	"strings"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
)

// RecordRefund records that the money of a mismatched payment (paid after
// expiry, a wrong amount or currency, another charge) was given back at
// the provider, outside the gateway, and closes the exception with that
// note. Admin only (op.orders.refund): it is the operator's word that a
// payer has their money back.
//
// Refund gives such a charge back through the order's provider when its
// family can refund and the mismatch names the charge; this is for the
// rest: a family without a refund call, evidence without the provider's
// reference, or a provider that refused. The operator refunds in the
// provider's own dashboard and records it here; the audit log keeps the
// amount, the currency and the note (say the provider's refund reference
// in it).
func (x *Exceptions) RecordRefund(ctx context.Context, actor access.Actor, id, amount, currency, text string) (Exception, error) {
	if err := allow(actor, access.PermOpRefund); err != nil {
		return Exception{}, err
	}
	currency = strings.ToUpper(strings.TrimSpace(currency))
	note, err := note(text, "say where and how the money was returned")
	if err != nil {
		return Exception{}, err
	}
	amt, err := schema.ParseAmount(strings.TrimSpace(amount))
	if err != nil || amt <= 0 {
		return Exception{}, invalid("the amount returned is required, like 200.00")
	}
	if !schema.KnownCurrency(currency) {
		return Exception{}, invalid("unknown currency " + currency)
	}
	e, err := x.find(ctx, actor, schema.ExceptionMismatch, id)
	if err != nil {
		return Exception{}, err
	}
	h := Handled{At: x.now().UTC(), By: By(actor), Note: "refunded at the provider: " + amt.String() + " " + currency + " — " + note}
	return x.mark(ctx, actor, e, h, "exception.refund_recorded",
		map[string]string{"kind": e.Kind, "note": note, "handled": e.ID, "amount": amt.String(), "currency": currency})
}
