package admin

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// reviewRow is an order under review as the desk lists it.
type reviewRow struct {
	O      *schema.Order
	Review *schema.USDTReviewView
}

type deskData struct {
	State string
	Rows  []reviewRow
}

func (c *Console) desk(ctx *fiber.Ctx) error {
	state := query(ctx, "state")
	if state == "" {
		state = command.BacklogWaiting
	}
	orders, err := c.d.USDTReviews.Reviews(ctx.UserContext(), c.ui.Actor(ctx), state)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	rows := make([]reviewRow, len(orders))
	for i, o := range orders {
		rows[i] = reviewRow{O: o, Review: schema.USDTReviewOf(o)}
	}
	return c.page(ctx, "usdt", "title_usdt", deskData{State: state, Rows: rows})
}

type reviewData struct {
	reviewRow
	History []usdt.Decision
	// Decidable: a transfer is under review on a live order, so an
	// administrator's decision can land.
	Decidable bool
}

func (c *Console) review(ctx *fiber.Ctx) error {
	o, h, err := c.d.USDTReviews.Review(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "review", "title_review", reviewData{reviewRow: reviewRow{O: o, Review: schema.USDTReviewOf(o)}, History: h,
		Decidable: o.TxHash != "" && o.Status.Live()})
}

// decide approves with a note or rejects with the reason the payer reads.
func (c *Console) decide(verb string) fiber.Handler {
	return func(ctx *fiber.Ctx) error {
		id, actor := param(ctx, "id"), c.ui.Actor(ctx)
		note, err := text(ctx, "note", audit.MaxText)
		if err != nil {
			return c.ui.Fail(ctx, err)
		}
		if verb == "approve" {
			_, err = c.d.USDTReviews.Approve(ctx.UserContext(), actor, id, note)
		} else {
			var reason string
			if reason, err = text(ctx, "reason", audit.MaxText); err != nil {
				return c.ui.Fail(ctx, err)
			}
			_, err = c.d.USDTReviews.Reject(ctx.UserContext(), actor, id, reason, note)
		}
		return c.after(ctx, err, "/usdt/"+id, verb+"d")
	}
}
