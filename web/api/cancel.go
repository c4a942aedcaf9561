package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// cancelPost serves POST /api/order/cancel (Cancels.MerchantCancel); the
// answer is the order as GET /api/order shows it.
func cancelPost(uc *command.UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := command.ParseJSONParams(c.Body())
		if err != nil {
			return err
		}
		o, err := uc.Cancel.MerchantCancel(c.UserContext(), p, server.ClientAddr(uc.ClientIP(), c))
		if err != nil {
			return err
		}
		return server.OK(c, schema.View(o, uc.PublicURL()))
	}
}
