package command

import (
	"context"

	"github.com/gofiber/fiber/v2"

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

// Simulators are the sandbox's simulators by method.
type Simulators map[schema.Method]Simulator

// Pay moves the order to paid.
func (s *SandboxOrders) Pay(c *fiber.Ctx) error { return s.move(c, schema.StatusPaid) }

// Fail moves the order to failed.
func (s *SandboxOrders) Fail(c *fiber.Ctx) error { return s.move(c, schema.StatusFailed) }

func (s *SandboxOrders) move(c *fiber.Ctx, to schema.Status) error {
	ctx := c.UserContext()
	acct, err := s.accounts.AuthQuery(ctx, formOrQuery(c, "appid"), formOrQuery(c, "key"))
	if err != nil {
		return err
	}
	if err := s.limiter.Allow(ctx, "query", acct.AppID, merchant.Limit(acct.QueryLimit, s.limit)); err != nil {
		return err
	}
	if !acct.Sandbox {
		return platform.Errorf(platform.KindForbidden, "sandbox endpoints are for sandbox merchants only")
	}
	id := c.Params("paymentId")
	o, err := s.settle.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if o.AppID != acct.AppID { // another merchant's order is not there for this one
		return orderNotFound(id)
	}
	out, err := s.drive(ctx, o, to)
	if err != nil {
		return err
	}
	return platform.OK(c, fiber.Map{
		"paymentId": id, "status": int(out.Order.Status), "status_str": out.Order.Status.String(), "changed": out.Moved,
	})
}

// drive settles o through its simulator when it has one and the provider
// knows the payment, else directly.
func (s *SandboxOrders) drive(ctx context.Context, o *schema.Order, to schema.Status) (Outcome, error) {
	sim, ok := s.sims[o.Method]
	if !ok || o.ProviderRef == "" || !o.Status.Live() {
		return s.settle.Move(ctx, o.ID, to)
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

func formOrQuery(c *fiber.Ctx, name string) string {
	if v := c.FormValue(name); v != "" {
		return v
	}
	return c.Query(name)
}
