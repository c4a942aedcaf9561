package admin

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// An operator's refund of a mismatch is two steps, as a merchant's is:
// the exceptions page's form answers with what will happen (the amount
// and currency, who gets it back and how, that it cannot be undone), and
// only that page's form (confirm=1) acts. A record-refund form with a
// problem comes back with the problem next to its field and what was
// typed kept.

// exceptionRefund is the second step's page.
type exceptionRefund struct {
	Provider bool // a refund through the provider; else a record of one made outside
	Exc      operator.Exception
	Amount   string // the provider refund's: what the provider reported it took ("90.00 USD")
	// The record's fields as typed and their problems (message ids).
	RecAmount, Currency, Note       string
	AmountErr, CurrencyErr, NoteErr string
}

// openMismatch is the open mismatch id, as the queue lists it.
func (c exceptionPages) openMismatch(ctx *fiber.Ctx, id string) (operator.Exception, error) {
	rows, err := c.queue.List(ctx.UserContext(), c.ui.Actor(ctx), operator.ExceptionFilter{Kind: schema.ExceptionMismatch})
	if err != nil {
		return operator.Exception{}, err
	}
	for _, r := range rows {
		if r.ID == id && r.Handled == nil {
			return r, nil
		}
	}
	return operator.Exception{}, platform.Errorf(platform.KindNotFound, "no such open mismatch")
}

// confirmProvider shows what a provider refund will give back.
func (c exceptionPages) confirmProvider(ctx *fiber.Ctx, id string) error {
	e, err := c.openMismatch(ctx, id)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.refundPage(ctx, exceptionRefund{Provider: true, Exc: e, Amount: e.Paid}, fiber.StatusOK)
}

// checkRecord checks a record-refund form; d gets the input and its
// problems.
func checkRecord(ctx *fiber.Ctx, d *exceptionRefund) (note string, ok bool) {
	d.RecAmount, d.Currency = kept(ctx.FormValue("amount")), strings.ToUpper(kept(ctx.FormValue("currency")))
	d.Note = kept(ctx.FormValue("note"))
	note, err := text(ctx, "note", audit.MaxText)
	if err != nil {
		d.NoteErr = "exc_err_note_text"
	} else if note == "" {
		d.NoteErr = "exc_err_note_required"
	}
	if a, err := schema.ParseAmount(d.RecAmount); err != nil || a <= 0 {
		d.AmountErr = "exc_err_amount"
	} else {
		d.RecAmount = a.String()
	}
	if !schema.KnownCurrency(d.Currency) {
		d.CurrencyErr = "exc_err_currency"
	}
	return note, d.NoteErr == "" && d.AmountErr == "" && d.CurrencyErr == ""
}

// refundPage renders the second step (or the record form with its
// problems) with status.
func (c exceptionPages) refundPage(ctx *fiber.Ctx, d exceptionRefund, status int) error {
	v := c.ui.View(ctx, "exc_confirm_title")
	v.Data, v.Status = d, status
	return c.ui.Render(ctx, "exception_refund", v)
}

// kept is a typed value shown back in its field: valid text without
// control characters, bounded.
func kept(v string) string {
	v = strings.ToValidUTF8(strings.TrimSpace(v), "\uFFFD")
	v = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, v)
	if r := []rune(v); len(r) > audit.MaxText {
		v = string(r[:audit.MaxText])
	}
	return v
}
