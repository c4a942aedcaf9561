package console

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
)

// own reads order id when it belongs to the session's merchant.
func (c *Console) own(ctx *fiber.Ctx, id string) (*schema.Order, error) {
	return c.read.Own(ctx.UserContext(), frame.SessionOf(ctx).AppID, id)
}

// order is the order's detail page: every field, the timeline, and the
// forms of the actions the role allows on the order as it stands.
func (c *Console) order(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.orderPage(ctx, o, refundForm{}, fiber.StatusOK)
}

// orderPage renders the order page with status and the refund form as
// typed (its problems inline).
func (c *Console) orderPage(ctx *fiber.Ctx, o *schema.Order, f refundForm, status int) error {
	v := c.ui.View(ctx, "order_title")
	ov, err := c.read.Detail(ctx.UserContext(), o)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	ov.Timeline = orderview.Merchant(ov.Timeline)
	ov.CanRefund = v.Can("orders.refund") && o.Status == schema.StatusPaid && o.RefundReserved < o.Amount
	ov.CanCancel = v.Can("orders.cancel") && o.Status.Live()
	ov.CanResend = v.Can("webhooks.resend") && ov.Delivery != nil
	ov.CanSandbox = v.Can("sandbox.drive") && o.Sandbox && o.Status.Live()
	if v.Can("webhooks.read") {
		// The Webhooks page searches by paymentId: this order's deliveries.
		ov.WebhooksURL = v.Base + "/webhooks?q=" + url.QueryEscape(o.ID)
	}
	v.Data = orderPage{OrderDetail: ov, Refund: f}
	v.Status = status
	v.Flash = flash(ctx, v)
	return c.ui.Render(ctx, "order", v)
}
