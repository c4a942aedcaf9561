package admin

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
)

// payoutPages are the merchants' payouts: the review queue, the approved
// ones awaiting an end (a bank payout's reference, the sender), a
// merchant's recent ones, and the decisions (admin only).
type payoutPages struct {
	screen
	payouts *operator.Payouts
}

func (c payoutPages) register(g fiber.Router) {
	r := c.ui.Require
	g.Get("/payouts", r(access.PermOpPayoutsRead), c.list)
	g.Post("/payouts/:id/approve", r(access.PermOpPayoutsDecide), c.approve)
	g.Post("/payouts/:id/reject", r(access.PermOpPayoutsDecide), c.reject)
	g.Post("/payouts/:id/paid", r(access.PermOpPayoutsDecide), c.paid)
	g.Post(refsPath, r(access.PermOpPayoutsDecide), c.references)
}

type payoutsData struct {
	operator.PayoutQueues
	AppID  string
	Recent []payout.Payout
	Report *operator.RefsReport
	Bad    string // why a references file recorded nothing
	// Hours is the maker-checker window as the page states it.
	Hours string
}

func (c payoutPages) load(ctx *fiber.Ctx) (payoutsData, error) {
	q, err := c.payouts.Queues(ctx.UserContext(), c.ui.Actor(ctx))
	if err != nil {
		return payoutsData{}, err
	}
	d := payoutsData{PayoutQueues: q, AppID: query(ctx, "appid"), Hours: strconv.FormatFloat(c.payouts.CheckerWindow().Hours(), 'f', -1, 64)}
	if d.AppID != "" {
		if d.Recent, err = c.payouts.Of(ctx.UserContext(), c.ui.Actor(ctx), d.AppID, 50); err != nil {
			return payoutsData{}, err
		}
	}
	return d, nil
}

func (c payoutPages) list(ctx *fiber.Ctx) error {
	d, err := c.load(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "payouts", "title_payouts", d)
}

func (c payoutPages) approve(ctx *fiber.Ctx) error {
	_, err := c.payouts.Approve(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"))
	return c.after(ctx, err, "/payouts", "payout_approved")
}

func (c payoutPages) reject(ctx *fiber.Ctx) error {
	reason, err := text(ctx, "reason", audit.MaxText)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	_, err = c.payouts.Reject(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"), reason)
	return c.after(ctx, err, "/payouts", "payout_rejected")
}

func (c payoutPages) paid(ctx *fiber.Ctx) error {
	_, err := c.payouts.Paid(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"), form(ctx, "reference"))
	return c.after(ctx, err, "/payouts", "payout_paid")
}

// refsPath takes a CSV of bank references: up to the use case's bound,
// past the 64 KiB of a form (frame.Config.Uploads).
const refsPath = "/payouts/references"

var refsUpload = operator.MaxRefsFile + 64<<10

// references records a CSV of payout_id,reference lines and shows what
// became of each row; a malformed file records nothing and names its rows.
func (c payoutPages) references(ctx *fiber.Ctx) error {
	fh, err := ctx.FormFile("file")
	if err != nil {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "choose a CSV file of payout_id,reference lines"))
	}
	f, err := fh.Open()
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	defer f.Close()
	rep, ierr := c.payouts.ImportRefs(ctx.UserContext(), c.ui.Actor(ctx), f)
	d, err := c.load(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d.Report = &rep
	if ierr != nil {
		if rep.Rows == nil {
			return c.ui.Fail(ctx, ierr)
		}
		var pe *platform.Error
		if !errors.As(ierr, &pe) {
			return c.ui.Fail(ctx, ierr)
		}
		d.Bad = pe.Msg
	}
	return c.page(ctx, "payouts", "title_payouts", d)
}
