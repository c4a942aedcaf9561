package admin

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
)

// moneyPages are a merchant's money in the operator console: its terms
// and the last entries of its journal on the merchant's page, its whole
// journal page by page, and the manual adjustments with their approvals.
// Admins change (merchants.write); support and auditors read.
type moneyPages struct {
	screen
	money *operator.Money
	store *merchant.Store
}

func (c moneyPages) register(g fiber.Router) {
	r := c.ui.Require
	g.Get("/merchants/:appid/journal", r(access.PermMerchantsRead), c.journal)
	g.Post("/merchants/:appid/terms", r(access.PermMerchantsWrite), c.setTerms)
	g.Post("/merchants/:appid/payout-terms", r(access.PermMerchantsWrite), c.setPayoutTerms)
	g.Post("/merchants/:appid/adjust", r(access.PermMerchantsWrite), c.adjust)
	g.Get("/adjustments", r(access.PermMerchantsRead), c.adjustments)
	g.Post("/adjustments/:id/approve", r(access.PermMerchantsWrite), c.approve)
	g.Post("/adjustments/:id/reject", r(access.PermMerchantsWrite), c.reject)
}

// merchantMoney is the money section of a merchant's page.
type merchantMoney struct {
	Terms         merchant.Terms
	TermsText     string
	Page          operator.JournalPage
	ApprovalAbove string
	Buckets       []string
}

// recentEntries is how many journal entries the merchant's page shows.
const recentEntries = 5

// section is the money section of appid's page, nil in a console without
// the money use cases.
func (c moneyPages) section(ctx *fiber.Ctx, a *merchant.Account) (*merchantMoney, error) {
	if c.money == nil {
		return nil, nil
	}
	p, err := c.money.Journal(ctx.UserContext(), c.ui.Actor(ctx), a.AppID, "", recentEntries)
	if err != nil {
		return nil, err
	}
	return &merchantMoney{Terms: a.Terms, TermsText: operator.TermsText(a.Terms), Page: p,
		ApprovalAbove: c.money.ApprovalAbove().String(), Buckets: []string{journal.Available, journal.Pending, journal.Reserve}}, nil
}

type journalData struct {
	A      *merchant.Account
	Page   operator.JournalPage
	Before string
	Next   string // the link to the older page
}

// journalPageSize is how many entries one journal page shows.
const journalPageSize = 50

func (c moneyPages) journal(ctx *fiber.Ctx) error {
	a, err := c.store.Get(ctx.UserContext(), param(ctx, "appid"))
	if err != nil {
		return c.ui.Fail(ctx, notFound(err))
	}
	before := query(ctx, "before")
	p, err := c.money.Journal(ctx.UserContext(), c.ui.Actor(ctx), a.AppID, before, journalPageSize)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d := journalData{A: a, Page: p, Before: before}
	if p.Next != "" {
		d.Next = Prefix + "/merchants/" + url.PathEscape(a.AppID) + "/journal?before=" + url.QueryEscape(p.Next)
	}
	return c.page(ctx, "journal", "title_journal", d)
}

// setTerms replaces the terms with the form's: settlement instant or D+N
// at a cut-off hour in a zone, a reserve, the two switches.
func (c moneyPages) setTerms(ctx *fiber.Ctx) error {
	appid := param(ctx, "appid")
	num := func(name string) (int, error) {
		v := form(ctx, name)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, platform.Errorf(platform.KindInvalidParameter, "%s must be a whole number", name)
		}
		return n, nil
	}
	t := merchant.Terms{Instant: form(ctx, "settle") == "instant", TimeZone: form(ctx, "tz"),
		RefundReturnsFee: form(ctx, "refund_returns_fee") == "1", AllowNegative: form(ctx, "allow_negative") == "1"}
	for name, p := range map[string]*int{"delay_days": &t.DelayDays, "cutoff_hour": &t.CutoffHour,
		"reserve_bps": &t.ReserveBps, "reserve_days": &t.ReserveDays} {
		n, err := num(name)
		if err != nil {
			return c.ui.Fail(ctx, err)
		}
		*p = n
	}
	// The payout terms have their own form: this one keeps them.
	cur, err := c.money.Terms(ctx.UserContext(), c.ui.Actor(ctx), appid)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	t.Payouts = cur.Payouts
	_, err = c.money.SetTerms(ctx.UserContext(), c.ui.Actor(ctx), appid, t)
	return c.after(ctx, err, "/merchants/"+appid, "terms")
}

// setPayoutTerms replaces one currency's payout terms (all empty removes
// them); the change is noted for maker-checker.
func (c moneyPages) setPayoutTerms(ctx *fiber.Ctx) error {
	appid := param(ctx, "appid")
	_, err := c.money.SetPayoutTerms(ctx.UserContext(), c.ui.Actor(ctx), operator.PayoutTermsInput{AppID: appid,
		Currency: strings.ToUpper(form(ctx, "currency")), Min: form(ctx, "min"), Fee: form(ctx, "fee"), AutoApprove: form(ctx, "auto_approve")})
	return c.after(ctx, err, "/merchants/"+appid, "payout_terms")
}

func (c moneyPages) adjust(ctx *fiber.Ctx) error {
	appid := param(ctx, "appid")
	reason, err := text(ctx, "reason", audit.MaxText)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	a, err := c.money.Adjust(ctx.UserContext(), c.ui.Actor(ctx), operator.AdjustInput{AppID: appid, Amount: form(ctx, "amount"),
		Currency: form(ctx, "currency"), Bucket: form(ctx, "bucket"), Reason: reason})
	if err == nil && a.State == operator.AdjPending {
		return c.after(ctx, nil, "/adjustments", "requested")
	}
	return c.after(ctx, err, "/merchants/"+appid, "adjusted")
}

type adjustmentsData struct {
	Pending, Recent []operator.Adjustment
	Me              string // operator.By of the person looking: their own requests get no approve button
	ApprovalAbove   string
}

func (c moneyPages) adjustments(ctx *fiber.Ctx) error {
	actor := c.ui.Actor(ctx)
	pending, recent, err := c.money.Adjustments(ctx.UserContext(), actor, "", 50)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "adjustments", "title_adjustments", adjustmentsData{Pending: pending, Recent: recent,
		Me: operator.By(actor), ApprovalAbove: c.money.ApprovalAbove().String()})
}

func (c moneyPages) approve(ctx *fiber.Ctx) error {
	_, err := c.money.Approve(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"))
	return c.after(ctx, err, "/adjustments", "adj_approved")
}

func (c moneyPages) reject(ctx *fiber.Ctx) error {
	reason, err := text(ctx, "reason", audit.MaxText)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	_, err = c.money.Reject(ctx.UserContext(), c.ui.Actor(ctx), param(ctx, "id"), reason)
	return c.after(ctx, err, "/adjustments", "adj_rejected")
}
