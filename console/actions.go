package console

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/webui"
)

// Every action: the route's Require has checked the role, the frame the
// session and CSRF token; here the order must be the merchant's (404
// otherwise, nothing done), the command side acts, the audit log gets the
// entry, and the browser goes back to the order with a notice.

// maxReason bounds a refund reason like the API's.
const maxReason = 256

func (c *Console) refund(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	reason := strings.TrimSpace(strings.Clone(ctx.FormValue("reason")))
	if reason == "" || utf8.RuneCountInString(reason) > maxReason {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "a reason of at most %d characters is required", maxReason))
	}
	amount := o.Amount - o.RefundReserved // full: what is left
	if lit := strings.TrimSpace(ctx.FormValue("amount")); lit != "" {
		if amount, err = schema.ParseAmount(lit); err != nil || amount <= 0 {
			return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "amount must be a positive amount like 12.50"))
		}
	}
	r, err := c.d.Actions.Refund(ctx.UserContext(), o, command.RefundAsk{Amount: amount, Reason: reason})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if err := c.audited(ctx, "order.refund", "order:"+o.ID, map[string]string{"amount": amount.String(), "currency": o.Currency,
		"reason": reason, "status": string(r.Status)}); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "refund")
}

func (c *Console) cancel(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	after, err := c.d.Actions.Cancel(ctx.UserContext(), o.ID)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if err := c.audited(ctx, "order.cancel", "order:"+o.ID, map[string]string{"status": after.Status.String()}); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "cancel")
}

func (c *Console) resend(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	refundID := strings.Clone(ctx.FormValue("refund"))
	if err := c.d.Actions.Resend(ctx.UserContext(), o.AppID, o.ID, refundID); err != nil {
		return c.ui.Fail(ctx, err)
	}
	target := "order:" + o.ID
	if refundID != "" {
		target = "refund:" + refundID
	}
	if err := c.audited(ctx, "order.webhook_resend", target, nil); err != nil {
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
	after, err := c.d.Actions.SandboxMove(ctx.UserContext(), o, to)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if err := c.audited(ctx, "order.sandbox_"+to.String(), "order:"+o.ID, map[string]string{"status": after.Status.String()}); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, o.ID, "sandbox")
}

// back goes to the order's page with the notice of what was done.
func (c *Console) back(ctx *fiber.Ctx, id, done string) error {
	return c.ui.Redirect(ctx, Base+"/orders/"+url.PathEscape(id)+"?done="+done)
}

// flash is the notice of ?done=, when it names an action.
func flash(ctx *fiber.Ctx, v *webui.View) string {
	if d := ctx.Query("done"); d != "" && v.L.Has("done_"+d) {
		return v.L.T("done_" + d)
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
