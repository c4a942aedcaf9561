package console

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
)

// Every action: the route's Require has checked the role, the frame the
// session and CSRF token; here the order must be the merchant's (404
// otherwise, nothing done), the form's text is cleaned (audit.Text) and the
// audit entry built and checked, then the command side acts, the audit log
// gets the entry with the outcome, and the browser goes back to the order
// with a notice.

// maxReason bounds a refund reason like the API's.
const maxReason = audit.MaxText

func (c *Console) refund(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	reason, err := audit.Text("reason", strings.Clone(ctx.FormValue("reason")), maxReason)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if reason == "" {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "a reason of at most %d characters is required", maxReason))
	}
	amount := o.Amount - o.RefundReserved // full: what is left
	if lit := strings.TrimSpace(ctx.FormValue("amount")); lit != "" {
		if amount, err = schema.ParseAmount(lit); err != nil || amount <= 0 {
			return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "amount must be a positive amount like 12.50"))
		}
	}
	e, err := c.entry(ctx, "order.refund", "order:"+o.ID, map[string]string{"amount": amount.String(), "currency": o.Currency, "reason": reason})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	r, err := c.d.Actions.Refund(ctx.UserContext(), o, command.RefundAsk{Amount: amount, Reason: reason})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	e.Details["status"] = string(r.Status)
	if err := c.audited(ctx, e); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "refund")
}

func (c *Console) cancel(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	e, err := c.entry(ctx, "order.cancel", "order:"+o.ID, map[string]string{})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	after, err := c.d.Actions.Cancel(ctx.UserContext(), o.ID)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	e.Details["status"] = after.Status.String()
	if err := c.audited(ctx, e); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "cancel")
}

func (c *Console) resend(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	refundID, err := audit.Text("refund", strings.Clone(ctx.FormValue("refund")), 0)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	target := "order:" + o.ID
	if refundID != "" {
		target = "refund:" + refundID
	}
	e, err := c.entry(ctx, "order.webhook_resend", target, nil)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if err := c.d.Actions.Resend(ctx.UserContext(), o.AppID, o.ID, refundID); err != nil {
		return c.ui.Fail(ctx, err)
	}
	if err := c.audited(ctx, e); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "resend")
}

// sandbox pays or fails a sandbox order as its provider would; a live
// order is refused whatever the role.
func (c *Console) sandbox(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if !o.Sandbox {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindForbidden, "only sandbox orders can be paid or failed from the console"))
	}
	to := schema.StatusFailed
	switch ctx.FormValue("to") {
	case "paid":
		to = schema.StatusPaid
	case "failed":
	default:
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "to must be paid or failed"))
	}
	e, err := c.entry(ctx, "order.sandbox_"+to.String(), "order:"+o.ID, map[string]string{})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	after, err := c.d.Actions.SandboxMove(ctx.UserContext(), o, to)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	e.Details["status"] = after.Status.String()
	if err := c.audited(ctx, e); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "sandbox")
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
