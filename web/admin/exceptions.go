package admin

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/operator"
)

// exceptionPages are the exceptions queue and its forms.
type exceptionPages struct {
	screen
	queue *operator.Exceptions
}

type exceptionsData struct {
	Kind    string
	Handled bool
	Kinds   []string
	Rows    []operator.Exception
}

func (c exceptionPages) exceptions(ctx *fiber.Ctx) error {
	f := operator.ExceptionFilter{Kind: query(ctx, "kind"), Handled: query(ctx, "handled") == "1"}
	rows, err := c.queue.List(ctx.UserContext(), c.ui.Actor(ctx), f)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "exceptions", "title_exceptions", exceptionsData{Kind: f.Kind, Handled: f.Handled, Kinds: operator.Kinds, Rows: rows})
}

func (c exceptionPages) handleException(ctx *fiber.Ctx) error {
	note, err := text(ctx, "note", audit.MaxText)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	_, err = c.queue.Handle(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "kind"), param(ctx, "id"), note)
	return c.after(ctx, err, "/exceptions", "handled")
}

func (c exceptionPages) resendException(ctx *fiber.Ctx) error {
	err := c.queue.Resend(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"))
	return c.after(ctx, err, "/exceptions", "resent")
}

// recordRefund closes a mismatch whose money the operator returned at the
// provider (admin only; operator.Exceptions.RecordRefund says why the
// gateway does not refund these itself).
func (c exceptionPages) recordRefund(ctx *fiber.Ctx) error {
	id := param(ctx, "id")
	d := exceptionRefund{}
	note, ok := checkRecord(ctx, &d)
	if !ok || form(ctx, "confirm") != "1" {
		e, err := c.openMismatch(ctx, id)
		if err != nil {
			return c.ui.Fail(ctx, err)
		}
		d.Exc = e
		if !ok {
			return c.refundPage(ctx, d, fiber.StatusBadRequest)
		}
		return c.refundPage(ctx, d, fiber.StatusOK)
	}
	_, err := c.queue.RecordRefund(ctx.UserContext(), c.ui.Actor(ctx), id, d.RecAmount, d.Currency, note)
	return c.after(ctx, err, "/exceptions", "refund")
}

// providerRefund gives a mismatch's charge back through the order's
// provider (admin only; operator.Exceptions.Refund), once confirmed.
func (c exceptionPages) providerRefund(ctx *fiber.Ctx) error {
	if form(ctx, "confirm") != "1" {
		return c.confirmProvider(ctx, param(ctx, "id"))
	}
	_, err := c.queue.Refund(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"))
	return c.after(ctx, err, "/exceptions", "refunded")
}
