package operator

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/refund.lua
	refundLua    string
	refundScript = audit.Script(refundLua)
)

// Adapters are the provider adapters an order's payment went through, by
// channel (provider.Registry): a refund goes to the account that was paid.
type Adapters interface {
	For(m schema.Method, sandbox bool) (provider.Adapter, bool)
	ForChannel(m schema.Method, sandbox bool, id string) (provider.Adapter, bool)
}

// Refunder is an adapter whose family gives money back; declared here,
// where an exception's refund uses it (command.Refunder is the same call).
type Refunder interface {
	Refund(ctx context.Context, r provider.RefundRequest) (provider.RefundResult, error)
}

// WithRefunds lets the queue refund mismatches through the providers'
// adapters; without it only RecordRefund is offered.
func (x *Exceptions) WithRefunds(a Adapters) *Exceptions {
	x.adapters = a
	return x
}

// timelineKept bounds the order's notification list as the notification
// log does (command's notificationsPerOrder).
const timelineKept = 100

// Refund gives back, through the order's provider, the money the provider
// reported it took in a mismatch (a partial or wrong payment, another
// charge, a payment after expiry): exactly the evidence's amount and
// currency, never what the order asked. Admin only (op.orders.refund).
//
// The refund id is derived from the evidence (RefundIDOf), and the
// providers refund once per refund id, so a double click, a retry after a
// timeout or a second admin never gives the money back twice; a lease in
// Redis keeps a second refund of the same exception from even calling the
// provider while the first is under way. The provider's answer — its
// refund reference, or its refusal — marks the exception handled, goes on
// the order's timeline and into the audit log in one script. A provider
// that cannot be reached leaves the exception open with the attempt shown
// on it and audited; the administrator refunds again (same refund id).
func (x *Exceptions) Refund(ctx context.Context, actor access.Actor, id string) (Exception, error) {
	if err := allow(actor, access.PermOpRefund); err != nil {
		return Exception{}, err
	}
	e, err := x.refundable(ctx, actor, id)
	if err != nil || e.Handled != nil {
		return e, err
	}
	lease, err := x.lease(ctx, e)
	if err != nil {
		return Exception{}, err
	}
	defer lease.release()
	// Look again under the lease: a refund that ended between the first
	// look and the lease is not asked for twice.
	if e, err = x.refundable(ctx, actor, id); err != nil || e.Handled != nil {
		return e, err
	}
	return x.askProvider(ctx, actor, e)
}

// refundable is the open mismatch id with evidence a provider refund can
// use, or the mismatch already ended by this refund (Handled set), or an
// error saying plainly why it cannot be refunded here.
func (x *Exceptions) refundable(ctx context.Context, actor access.Actor, id string) (Exception, error) {
	e, err := x.find(ctx, actor, schema.ExceptionMismatch, id)
	if err != nil {
		return Exception{}, x.otherKind(ctx, actor, id, err)
	}
	if h := e.Handled; h != nil {
		if h.RefundID != "" && h.RefundID == RefundIDOf(e) {
			return e, nil
		}
		return Exception{}, platform.Errorf(platform.KindConflict, "this mismatch was handled already by %s: %s", h.By, h.Note)
	}
	if _, err := evidence(e); err != nil {
		return Exception{}, err
	}
	o, err := x.orders.Get(ctx, e.OrderID)
	if err != nil || o == nil {
		return Exception{}, platform.Errorf(platform.KindNotFound, "order %s is no longer kept: refund at the provider and record it", e.OrderID)
	}
	if o.Status == schema.StatusPaid {
		// The families refund by our order id: on a paid order that would
		// take back the payment we accepted, not the unmatched charge.
		return Exception{}, platform.Errorf(platform.KindConflict, "order %s is paid: a refund through the provider would take back "+
			"the payment we accepted; refund the unmatched charge at the provider and record it", o.ID)
	}
	if _, err := x.refunder(o); err != nil {
		return Exception{}, err
	}
	return e, nil
}

// otherKind turns "no mismatch id" into a plain refusal when id is an
// exception of another kind.
func (x *Exceptions) otherKind(ctx context.Context, actor access.Actor, id string, notFound error) error {
	all, err := x.List(ctx, actor, ExceptionFilter{Handled: true})
	if err != nil {
		return notFound
	}
	for _, e := range all {
		if e.ID == id && e.Kind != schema.ExceptionMismatch {
			return invalid("only a provider mismatch can be refunded; " + id + " is a " + e.Kind + " exception")
		}
	}
	return notFound
}

// evidence is what the provider reported it took, from the mismatch.
func evidence(e Exception) (provider.Money, error) {
	if strings.TrimSpace(e.Ref) == "" {
		return provider.Money{}, invalid("the mismatch's evidence names no provider reference of the charge, so the gateway cannot " +
			"say which payment to refund: refund it at the provider and record it")
	}
	f := strings.Fields(e.Paid)
	if len(f) != 2 {
		return provider.Money{}, invalid("the mismatch's evidence does not say what the provider took: refund at the provider and record it")
	}
	amt, err := schema.ParseAmount(f[0])
	if err != nil || amt <= 0 || !schema.KnownCurrency(f[1]) {
		return provider.Money{}, invalid("the mismatch's evidence reports no refundable amount (" + e.Paid + ")")
	}
	return provider.Money{Amount: amt, Currency: f[1]}, nil
}

func evidenceOK(e Exception) bool { _, err := evidence(e); return err == nil }

// refunder is o's provider's refund call, or why there is none.
func (x *Exceptions) refunder(o *schema.Order) (Refunder, error) {
	if o == nil {
		return nil, platform.Errorf(platform.KindNotFound, "the order is no longer kept")
	}
	if x.adapters == nil {
		return nil, platform.Errorf(platform.KindRefundUnsupported,
			"this process has no provider adapters: refund from the operator console or `gateway exceptions refund` on a configured host")
	}
	if _, ok := x.adapters.For(o.Method, o.Sandbox); ok {
		a, ok := x.adapters.ForChannel(o.Method, o.Sandbox, o.Channel)
		if !ok {
			return nil, platform.Errorf(platform.KindRefundUnsupported,
				"the order went through channel %s, which is not configured on this host: configure it again or refund at the provider and record the refund here",
				channel.OfOrder(o))
		}
		if r, ok := a.(Refunder); ok {
			return r, nil
		}
	}
	return nil, platform.Errorf(platform.KindRefundUnsupported,
		"%s cannot refund through the gateway: refund at the provider and record the refund here", o.Method)
}

// RefundIDOf is the refund id a mismatch is refunded under: the order and
// the charge's evidence (provider, reference, amount), not the time, so a
// provider's repeat of the same notification asks for the same refund.
func RefundIDOf(e Exception) string {
	return "XR" + digest(strings.Join([]string{e.OrderID, e.Provider, e.Ref, e.Paid}, "\x00"))
}

// askProvider makes the refund call and keeps its outcome.
func (x *Exceptions) askProvider(ctx context.Context, actor access.Actor, e Exception) (Exception, error) {
	money, _ := evidence(e) // checked by refundable
	o, err := x.orders.Get(ctx, e.OrderID)
	if err != nil {
		return Exception{}, fmt.Errorf("read order of exception: %w", err)
	}
	r, err := x.refunder(o)
	if err != nil {
		return Exception{}, err
	}
	rid := RefundIDOf(e)
	d := map[string]string{"kind": e.Kind, "handled": e.ID, "refund": rid, "amount": money.Amount.String(),
		"currency": money.Currency, "provider": string(o.Method), "ref": e.Ref}
	// The entry is checked before the provider is asked: what the
	// provider answers is clipped into it (audit.Clip), never refused.
	if _, err := checked(entry(x.now(), actor, "exception.refund", "order:"+e.OrderID, e.AppID, d)); err != nil {
		return Exception{}, err
	}
	res, err := r.Refund(ctx, provider.RefundRequest{OrderID: o.ID, Ref: e.Ref, RefundID: rid, Amount: money, Charged: money,
		Reason: "refund of a payment the order did not accept (" + e.Verdict + ")"})
	h := Handled{At: x.now().UTC(), By: By(actor), RefundID: rid}
	what := money.Amount.String() + " " + money.Currency + " through " + string(o.Method)
	switch {
	case errors.Is(err, provider.ErrRefused) || errors.Is(err, provider.ErrNotFound):
		h.Note, d["error"] = "the provider refused the refund of "+what+": refund at the provider and record it", clip(err.Error())
		return x.ended(ctx, actor, e, h, "exception.refund_refused", d)
	case err != nil:
		return Exception{}, x.unanswered(ctx, actor, e, h, d, err)
	}
	h.ProviderRefund = audit.Clip(res.Ref, 300)
	d["provider_refund"] = h.ProviderRefund
	h.Note = "refunded " + what + ", provider refund " + h.ProviderRefund
	return x.ended(ctx, actor, e, h, "exception.refund", d)
}

// ended keeps a provider's answer: the mark, the timeline's line and the
// audit entry in one script.
func (x *Exceptions) ended(ctx context.Context, actor access.Actor, e Exception, h Handled, action string, d map[string]string) (Exception, error) {
	shard, ok := schema.ParseOrderID(e.OrderID)
	if !ok {
		return Exception{}, platform.Errorf(platform.KindNotFound, "no order %s", e.OrderID)
	}
	mark, _ := json.Marshal(h) // plain fields always marshal
	rec := schema.NotificationRecord{At: h.At, Provider: e.Provider, OrderID: e.OrderID, Ref: h.ProviderRefund,
		Outcome: "refunded", Paid: d["amount"] + " " + d["currency"], Verdict: schema.VerdictRefunded, Detail: "operator refund: " + h.Note}
	if h.ProviderRefund == "" {
		rec.Outcome, rec.Verdict = "", schema.VerdictRefundRefused
	}
	line, _ := json.Marshal(rec)
	args, err := audit.ScriptArgs([]any{string(mark), x.cfg.KeepHandled.Milliseconds(), string(line), timelineKept},
		entry(h.At, actor, action, "order:"+e.OrderID, e.AppID, d))
	if err != nil {
		return Exception{}, err
	}
	keys := []string{handledKey(e), schema.AuditKey(markTag(e)), schema.NotificationsKey(shard, e.OrderID)}
	if err := refundScript.Run(ctx, x.rdb, keys, args...).Err(); err != nil {
		return Exception{}, fmt.Errorf("keep exception refund: %w", err)
	}
	e.Handled, e.Attempt = &h, nil
	return e, nil
}

// clip is a provider's error as the entry keeps it (audit.Clip).
func clip(s string) string { return audit.Clip(s, 300) }
