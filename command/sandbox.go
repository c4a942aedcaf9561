package command

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// SandboxOrders serves POST /sandbox/orders/{paymentId}/pay and /fail: a
// sandbox merchant's own test driver, authenticated like order queries; it
// shares the query limit. Orders of a method without a simulator (our own
// flows) are settled directly. Where a simulator's outcome sends no
// notification (its provider sends none for it), the driver asks the
// provider through Notifications.Reconcile.
type SandboxOrders struct {
	accounts Accounts
	settle   *Settle
	sims     Simulators
	notes    *Notifications
	limiter  *platform.Limiter
	limit    platform.Limit
}

// Simulator is a sandbox provider as the driver uses it: it settles a
// payment the way a tester on its page would, and sends the notification
// the way its provider would, so the outcome reaches the order through the
// adapter's verification like a live one.
type Simulator interface {
	Settle(ctx context.Context, ref string, paid bool) error
}

// Simulators are the sandbox's simulators by channel (sandbox refs with
// their id spelt out, channel.Default included): an order is driven
// through the simulator of the channel it went to.
type Simulators map[channel.Ref]Simulator

// Move is the driver's pay (to paid) or fail (to failed) of the sandbox
// merchant's own order id, authenticated by appid and query key like an
// order query.
func (s *SandboxOrders) Move(ctx context.Context, appid, key, id string, to schema.Status) (Outcome, error) {
	acct, err := s.accounts.AuthQuery(ctx, appid, key)
	if err != nil {
		return Outcome{}, err
	}
	if err := s.limiter.Allow(ctx, "query", acct.AppID, merchant.Limit(acct.QueryLimit, s.limit)); err != nil {
		return Outcome{}, err
	}
	if !acct.Sandbox {
		return Outcome{}, platform.Errorf(platform.KindForbidden, "sandbox endpoints are for sandbox merchants only")
	}
	o, err := s.settle.store.Get(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if o.AppID != acct.AppID { // another merchant's order is not there for this one
		return Outcome{}, orderNotFound(id)
	}
	return s.drive(ctx, o, to)
}

// drive settles o through its channel's simulator when the provider knows
// the payment, else directly (our own flows). A provider order whose
// channel has no simulator here any more is an error, not a payment
// nobody's provider saw.
func (s *SandboxOrders) drive(ctx context.Context, o *schema.Order, to schema.Status) (Outcome, error) {
	if o.ProviderRef == "" || !o.Status.Live() || !s.simulated(o.Method) {
		return s.settle.Move(ctx, o.ID, to)
	}
	ref := channel.OfOrder(o)
	sim, ok := s.sims[ref]
	if !ok {
		return Outcome{}, &platform.Error{Kind: platform.KindUnavailable,
			Msg: "the sandbox channel this order went through is no longer configured", Err: fmt.Errorf("no simulator of %s", ref)}
	}
	if err := sim.Settle(ctx, o.ProviderRef, to == schema.StatusPaid); err != nil {
		return Outcome{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "the simulated provider's notification was not accepted; see the order's notifications", Err: err}
	}
	after, err := s.settle.store.Get(ctx, o.ID)
	if err != nil {
		return Outcome{}, err
	}
	if after.Status != to && s.notes != nil {
		if err := s.notes.Reconcile(ctx, after); err != nil {
			return Outcome{}, err
		}
		if after, err = s.settle.store.Get(ctx, o.ID); err != nil {
			return Outcome{}, err
		}
	}
	if after.Status != to {
		return Outcome{}, platform.Errorf(platform.KindConflict, "order %s is %s after the simulated notification", o.ID, after.Status)
	}
	return Outcome{Order: after, Moved: after.Version != o.Version}, nil
}

// simulated reports whether method m has simulators at all (a provider
// family's, not one of our own flows).
func (s *SandboxOrders) simulated(m schema.Method) bool {
	_, ok := s.sims[channel.Ref{Sandbox: true, Method: m, ID: channel.Default}]
	return ok
}
