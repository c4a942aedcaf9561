package console

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
)

// Every action: the route's Require has checked the role, the frame the
// session and CSRF token; here the form's text is cleaned (audit.Text) and
// the use case asked (command.MerchantOrders, dispatcher.Webhooks.Resend):
// it checks that the order is the merchant's (404 otherwise, nothing done),
// builds and checks the audit entry, acts and records it. The browser
// goes back to the order with a notice.

func (c *Console) cancel(ctx *fiber.Ctx) error {
	id := strings.Clone(ctx.Params("id"))
	if _, err := c.d.Actions.Cancel(ctx.UserContext(), c.ui.Actor(ctx), id); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, id, "cancel")
}

// resend asks the one resend (dispatcher.Webhooks.Resend), which checks
// that the delivery is the person's merchant's and writes the audit entry
// in the same script.
func (c *Console) resend(ctx *fiber.Ctx) error {
	id := strings.Clone(ctx.Params("id"))
	refundID, err := audit.Text("refund", strings.Clone(ctx.FormValue("refund")), 0)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if err := c.d.Actions.Resend(ctx.UserContext(), c.ui.Actor(ctx), id, refundID); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, id, "resend")
}

// sandbox pays or fails a sandbox order as its provider would; a live
// order is refused whatever the role (the use case says so).
func (c *Console) sandbox(ctx *fiber.Ctx) error {
	id := strings.Clone(ctx.Params("id"))
	to := schema.StatusFailed
	switch ctx.FormValue("to") {
	case "paid":
		to = schema.StatusPaid
	case "failed":
	default:
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "to must be paid or failed"))
	}
	if _, err := c.d.Actions.SandboxMove(ctx.UserContext(), c.ui.Actor(ctx), id, to); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, id, "sandbox")
}

// back goes to the order's page with the notice of what was done.
func (c *Console) back(ctx *fiber.Ctx, id, done string) error {
	return c.ui.Redirect(ctx, Base+"/orders/"+url.PathEscape(id)+"?done="+done)
}

// flash is the notice of ?done=, when it names an action.
func flash(ctx *fiber.Ctx, v *frame.View) string {
	if d := ctx.Query("done"); d != "" && v.L.Has("done_"+d) {
		return v.L.T("done_" + d)
	}
	return ""
}
