package console

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
)

// livePage is the live orders page: the merchant's latest orders, and new
// and changed ones put on top as they come. Its script reads the stream at
// /console/orders/live (server-sent events, same origin, so the strict CSP
// stands); the stream stays where scripts already read it.
func (c *Console) livePage(ctx *fiber.Ctx) error {
	s := frame.SessionOf(ctx)
	v := c.ui.View(ctx, "live_title")
	v.Scripts = []string{"console.js"}
	ov := orderview.OrderList{Statuses: orderview.Statuses(), Live: c.d.Live != nil}
	v.Data = &ov
	of, err := orderview.ParseForm(ctx, s.AppID)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	of.Query.Limit, of.Query.Page = c.cfg.PageSize, 1
	_, rows, err := c.read.Page(ctx, of.Query)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	for i := range rows {
		ov.Rows = append(ov.Rows, orderview.RowOf(&rows[i]))
	}
	return c.ui.Render(ctx, "live", v)
}
