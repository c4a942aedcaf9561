package command

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// MerchantOrders is a merchant console user's actions on the merchant's
// own orders: the ownership check (another merchant's order is 404, as a
// missing one, with nothing done), the audit entry built and checked
// before the change (a value the log cannot keep refuses the change), the
// change, then the entry with its outcome. The changes ask an outside
// party or run more than one script (docs/architecture.md, "Audit: same
// step, or not, and why"), so the entry is appended after the change.
type MerchantOrders struct {
	orders OrderGetter
	acts   MerchantOrderActs
	log    Auditor
	now    func() time.Time
}

// OrderGetter reads a live order (a *Store: a missing one is KindNotFound).
type OrderGetter interface {
	Get(ctx context.Context, id string) (*schema.Order, error)
}

// MerchantOrderActs are the command use cases the console's actions run
// (Refunds, Cancels, SandboxOrders, bound by cmd/gateway).
type MerchantOrderActs interface {
	Refund(ctx context.Context, o *schema.Order, ask RefundAsk) (*schema.Refund, error)
	Cancel(ctx context.Context, id string) (*schema.Order, error)
	SandboxMove(ctx context.Context, o *schema.Order, to schema.Status) (*schema.Order, error)
}

// Auditor appends an entry to the audit log (an *audit.Log).
type Auditor interface {
	Append(ctx context.Context, e audit.Entry) (string, error)
}

// NewMerchantOrders wires the console's order actions; now stamps entries.
func NewMerchantOrders(orders OrderGetter, acts MerchantOrderActs, log Auditor, now func() time.Time) *MerchantOrders {
	if now == nil {
		now = time.Now
	}
	return &MerchantOrders{orders: orders, acts: acts, log: log, now: now}
}

// errNotOurs is a missing order and another merchant's alike.
var errNotOurs = platform.Errorf(platform.KindNotFound, "no such order")

// errForbidden is a refusal by role; the page shows it as 403.
var errForbidden = &platform.Error{Kind: platform.KindForbidden, Msg: "your role does not allow this action", Err: access.ErrForbidden}

// maxConsoleReason bounds a console refund reason (the form cleans it to it).
const maxConsoleReason = audit.MaxText

// Refund refunds amount of by's merchant's order id (0: what is left),
// for a reason that is required.
func (m *MerchantOrders) Refund(ctx context.Context, by access.Actor, id string, amount schema.Amount, reason string) (*schema.Refund, error) {
	if reason == "" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "a reason of at most %d characters is required", maxConsoleReason)
	}
	o, err := m.own(ctx, by, id, access.PermOrdersRefund)
	if err != nil {
		return nil, err
	}
	if amount == 0 {
		amount = o.Amount - o.RefundReserved
	}
	e, err := m.entry(by, "order.refund", o.ID, map[string]string{"amount": amount.String(), "currency": o.Currency, "reason": reason})
	if err != nil {
		return nil, err
	}
	r, err := m.acts.Refund(ctx, o, RefundAsk{Amount: amount, Reason: reason})
	if err != nil {
		return nil, err
	}
	e.Details["status"] = string(r.Status)
	return r, m.append(ctx, e)
}

// Cancel cancels by's merchant's unpaid order id.
func (m *MerchantOrders) Cancel(ctx context.Context, by access.Actor, id string) (*schema.Order, error) {
	o, err := m.own(ctx, by, id, access.PermOrdersCancel)
	if err != nil {
		return nil, err
	}
	e, err := m.entry(by, "order.cancel", o.ID, map[string]string{})
	if err != nil {
		return nil, err
	}
	after, err := m.acts.Cancel(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	e.Details["status"] = after.Status.String()
	return after, m.append(ctx, e)
}

// SandboxMove pays or fails by's merchant's sandbox order id as its
// provider would; a live order is refused whatever the role.
func (m *MerchantOrders) SandboxMove(ctx context.Context, by access.Actor, id string, to schema.Status) (*schema.Order, error) {
	o, err := m.own(ctx, by, id, access.PermSandboxDrive)
	if err != nil {
		return nil, err
	}
	if !o.Sandbox {
		return nil, platform.Errorf(platform.KindForbidden, "only sandbox orders can be paid or failed from the console")
	}
	if to != schema.StatusPaid && to != schema.StatusFailed {
		return nil, platform.Errorf(platform.KindInvalidParameter, "to must be paid or failed")
	}
	e, err := m.entry(by, "order.sandbox_"+to.String(), o.ID, map[string]string{})
	if err != nil {
		return nil, err
	}
	after, err := m.acts.SandboxMove(ctx, o, to)
	if err != nil {
		return nil, err
	}
	e.Details["status"] = after.Status.String()
	return after, m.append(ctx, e)
}

// own reads order id when it is by's merchant's and by's role may do p:
// the route checks the same permission first, and the use case checks it
// again so that no door can forget it.
func (m *MerchantOrders) own(ctx context.Context, by access.Actor, id string, p access.Permission) (*schema.Order, error) {
	if !by.Can(access.RealmMerchant, p) {
		return nil, errForbidden
	}
	if _, ok := schema.ParseOrderID(id); !ok || by.AppID == "" {
		return nil, errNotOurs
	}
	o, err := m.orders.Get(ctx, id)
	if platform.KindOf(err) == platform.KindNotFound {
		return nil, errNotOurs
	}
	if err != nil {
		return nil, err
	}
	if o.AppID != by.AppID {
		return nil, errNotOurs
	}
	return o, nil
}

// entry is by's action on order id, checked before the change.
func (m *MerchantOrders) entry(by access.Actor, action, id string, details map[string]string) (audit.Entry, error) {
	e := audit.Entry{At: m.now().UTC(), ActorID: by.ID, ActorEmail: by.Email, Realm: by.Realm, Role: string(by.Role),
		Action: action, Target: "order:" + id, AppID: by.AppID, Source: by.Source, Details: details}
	return e, e.Check()
}

// append writes e after its change; a failure (Redis down) reports the
// action as failed, though the change stands.
func (m *MerchantOrders) append(ctx context.Context, e audit.Entry) error {
	if _, err := m.log.Append(ctx, e); err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}
