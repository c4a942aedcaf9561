package command

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// cancelPost serves POST /api/order/cancel (Cancels.MerchantCancel); the
// answer is the order as GET /api/order shows it.
func cancelPost(uc *UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := ParseJSONParams(c.Body())
		if err != nil {
			return err
		}
		o, err := uc.Cancel.MerchantCancel(c.UserContext(), p, uc.ips.Of(c))
		if err != nil {
			return err
		}
		return platform.OK(c, schema.View(o, uc.cfg.PublicURL))
	}
}
