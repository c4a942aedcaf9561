package console

import (
	"errors"
	"strings"
	"unicode"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/orderview"
	"github.com/paygate/gateway/web/server"
)

// A refund is two steps. The order page's form is checked here (each
// problem shown next to its field, what was typed kept) and answered with
// a confirmation of what will happen: the amount and currency, what the
// payer gets back, what is left, that it cannot be undone. Only that
// page's form (confirm=1, the amount resolved) refunds; a form posted
// without it never moves money.

// maxReason bounds a refund reason like the API's.
const maxReason = audit.MaxText

// refundForm is the refund form as typed and its problems (message ids),
// shown inline on the order page.
type refundForm struct {
	Amount, Reason       string
	AmountErr, ReasonErr string
	Problem              string // a refusal of the refund as a whole, as said
}

// refundConfirm is the second step's page.
type refundConfirm struct {
	O                *schema.Order
	Amount, Currency string // what is refunded
	Paid, LeftAfter  string
	Method           string
	Full             bool // the refund takes what is left
	Reason           string
}

// orderPage is the order page's data: the order and its refund form.
type orderPage struct {
	*orderview.OrderDetail
	Refund refundForm
}

func (c *Console) refund(ctx *fiber.Ctx) error {
	id := strings.Clone(ctx.Params("id"))
	o, err := c.own(ctx, id)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	f := refundForm{Amount: kept(ctx.FormValue("amount")), Reason: kept(ctx.FormValue("reason"))}
	reason, amount, ok := checkRefund(o, &f, strings.Clone(ctx.FormValue("reason")), strings.TrimSpace(ctx.FormValue("amount")))
	if !ok || ctx.FormValue("edit") == "1" {
		status := fiber.StatusBadRequest
		if ok {
			status = fiber.StatusOK // back from the confirmation to change it
		}
		return c.orderPage(ctx, o, f, status)
	}
	if ctx.FormValue("confirm") != "1" {
		return c.confirmRefund(ctx, o, amount, reason)
	}
	if _, err := c.d.Actions.Refund(ctx.UserContext(), c.ui.Actor(ctx), id, amount, reason); err != nil {
		// The order changed under the confirmation (another refund took
		// what was left): said on the order page, the form as it was.
		var de *platform.Error
		if body := server.Classify(err); errors.As(err, &de) && (body.Code == fiber.StatusBadRequest || body.Code == fiber.StatusConflict ||
			body.Code == fiber.StatusUnprocessableEntity) {
			if o, err = c.own(ctx, id); err != nil {
				return c.ui.Fail(ctx, err)
			}
			f.Problem = de.Msg
			return c.orderPage(ctx, o, f, body.Code)
		}
		return c.ui.Fail(ctx, err)
	}
	return c.back(ctx, id, "refund")
}

// checkRefund checks the form against the order as it stands: a reason of
// audit.Text's rule, an amount that is positive and at most what is left
// (empty: all that is left). Problems go into f; amount is resolved.
func checkRefund(o *schema.Order, f *refundForm, rawReason, lit string) (string, schema.Amount, bool) {
	reason, err := audit.Text("reason", rawReason, maxReason)
	switch {
	case err != nil:
		f.ReasonErr = "refund_err_reason_text"
	case reason == "":
		f.ReasonErr = "refund_err_reason_required"
	}
	left := o.Amount - o.RefundReserved
	amount := left
	if lit != "" {
		a, err := schema.ParseAmount(lit)
		switch {
		case err != nil || a <= 0:
			f.AmountErr = "refund_err_amount_format"
		case a > left:
			f.AmountErr = "refund_err_amount_left"
		default:
			amount = a
		}
	}
	if o.Status != schema.StatusPaid || left <= 0 {
		f.Problem = "refund_err_not_refundable"
	}
	return reason, amount, f.ReasonErr == "" && f.AmountErr == "" && f.Problem == ""
}

// confirmRefund shows what the refund will do and the one form that does it.
func (c *Console) confirmRefund(ctx *fiber.Ctx, o *schema.Order, amount schema.Amount, reason string) error {
	v := c.ui.View(ctx, "refund_confirm_title")
	left := o.Amount - o.RefundReserved
	v.Data = refundConfirm{O: o, Amount: amount.String(), Currency: o.Currency, Paid: o.Amount.String(),
		LeftAfter: (left - amount).String(), Method: string(o.Method), Full: amount == left, Reason: reason}
	return c.ui.Render(ctx, "refund_confirm", v)
}

// kept is a typed value shown back in its field: valid text without
// control characters, bounded, so that a refused value can be corrected.
func kept(v string) string {
	v = strings.ToValidUTF8(strings.TrimSpace(v), "\uFFFD")
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, v)
	if r := []rune(v); len(r) > maxReason {
		v = string(r[:maxReason])
	}
	return v
}
