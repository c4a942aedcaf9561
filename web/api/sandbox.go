package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// sandboxDriver serves POST /sandbox/orders/{paymentId}/pay and /fail
// (SandboxOrders.Move); appid and key come in the form or the query.
func sandboxDriver(s *command.SandboxOrders, to schema.Status) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := c.Params("paymentId")
		out, err := s.Move(c.UserContext(), formOrQuery(c, "appid"), formOrQuery(c, "key"), id, to)
		if err != nil {
			return err
		}
		return server.OK(c, fiber.Map{
			"paymentId": id, "status": int(out.Order.Status), "status_str": out.Order.Status.String(), "changed": out.Moved,
		})
	}
}

func formOrQuery(c *fiber.Ctx, name string) string {
	if v := c.FormValue(name); v != "" {
		return v
	}
	return c.Query(name)
}
