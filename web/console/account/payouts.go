package account

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/selfservice"
	"github.com/paygate/gateway/web/frame"
)

// payoutDesk is the Payouts page's routes: a page of its own, apart from
// the other desks' handlers.
type payoutDesk struct{ handlers }

// payoutsData is the Payouts page: destinations, payouts, the ask form
// and, after a preview, its confirmation.
type payoutsData struct {
	Overview selfservice.PayoutsOverview
	Confirm  *selfservice.PayoutPreview // a preview waiting for its confirmation
	Kinds    []payout.Kind
}

// payoutsLimit is how many payouts the page lists.
const payoutsLimit = 50

func (h payoutDesk) payouts(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_payouts_title")
	v.Flash = notice(v, c)
	return h.payoutsPage(c, v, nil)
}

func (h payoutDesk) payoutsPage(c *fiber.Ctx, v *frame.View, confirm *selfservice.PayoutPreview) error {
	ov, err := h.p.svc.Payouts.Overview(c.UserContext(), h.ui.Actor(c), payoutsLimit)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	v.Data = payoutsData{Overview: ov, Confirm: confirm, Kinds: []payout.Kind{payout.Bank, payout.TRC20, payout.BEP20, payout.ERC20}}
	v.Path = h.ui.Config().Base + "/payouts"
	return h.ui.Render(c, "desk_payouts", v)
}

// addDestination saves a destination after the owner's fresh TOTP code.
func (h payoutDesk) addDestination(c *fiber.Ctx) error {
	d := payout.Destination{Kind: payout.Kind(form(c, "kind")), Label: form(c, "label"), Holder: form(c, "holder"),
		Bank: form(c, "bank"), Account: form(c, "account"), Branch: form(c, "branch"), Address: form(c, "address")}
	if _, err := h.p.svc.Payouts.AddDestination(c.UserContext(), h.ui.Actor(c), d, form(c, "code")); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/payouts", "destination_added")
}

func (h payoutDesk) removeDestination(c *fiber.Ctx) error {
	if err := h.p.svc.Payouts.RemoveDestination(c.UserContext(), h.ui.Actor(c), form(c, "id")); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/payouts", "destination_removed")
}

// askPayout is the two steps of a payout: without confirm=1 the page shows
// what would be held and asks to confirm; with it, the payout is asked for
// under the key its preview made (a form sent twice asks once).
func (h payoutDesk) askPayout(c *fiber.Ctx) error {
	ask := selfservice.PayoutAsk{Destination: form(c, "destination"), Amount: form(c, "amount"), Currency: form(c, "currency"), Key: form(c, "key")}
	if form(c, "confirm") != "1" {
		p, err := h.p.svc.Payouts.Preview(c.UserContext(), h.ui.Actor(c), ask)
		if err != nil {
			return h.ui.Fail(c, err)
		}
		return h.payoutsPage(c, h.ui.View(c, "desk_payouts_title"), &p)
	}
	if _, err := h.p.svc.Payouts.Request(c.UserContext(), h.ui.Actor(c), ask); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/payouts", "payout_requested")
}
