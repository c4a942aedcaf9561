package console

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/web/frame"
)

// overview is the start page: the merchant's volume per currency, orders,
// conversion and methods over today, 7 or 30 days, from the reporting
// read model (the same figures action=summary and timeseries answer).
func (c *Console) overview(ctx *fiber.Ctx) error {
	v := c.ui.View(ctx, "overview_title")
	ov, err := c.read.Overview(ctx.UserContext(), frame.SessionOf(ctx).AppID, ctx.Query("range", "7d"), v.L, v.Zone)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	v.Data = ov
	return c.ui.Render(ctx, "overview", v)
}
