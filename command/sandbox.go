package command

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// SandboxOrders serves POST /sandbox/orders/{paymentId}/pay and /fail: a
// sandbox merchant's own test driver, authenticated like order queries.
type SandboxOrders struct {
	accounts Accounts
	settle   *Settle
	limiter  *platform.Limiter
	limit    platform.Limit
}

// NewSandboxOrders wires the sandbox driver; it shares the query limit.
func (h *CreateOrder) NewSandboxOrders(settle *Settle) *SandboxOrders {
	return &SandboxOrders{accounts: h.accounts, settle: settle, limiter: h.limiter, limit: h.cfg.QueryLimit}
}

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
	if errors.Is(err, ErrOrderNotFound) || (err == nil && o.AppID != acct.AppID) {
		return platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	if err != nil {
		return err
	}
	out, err := s.settle.Move(ctx, id, to)
	if err != nil {
		return err
	}
	return platform.OK(c, fiber.Map{
		"paymentId": id, "status": int(out.Order.Status), "status_str": out.Order.Status.String(), "changed": out.Moved,
	})
}

func formOrQuery(c *fiber.Ctx, name string) string {
	if v := c.FormValue(name); v != "" {
		return v
	}
	return c.Query(name)
}
