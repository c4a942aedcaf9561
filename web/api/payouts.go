package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// PayoutView is one payout as the merchant API answers it (payout.View,
// which the payout.* events carry too).
type PayoutView = payout.View

// PayoutsView is a page of GET /api/payouts.
type PayoutsView struct {
	Payouts    []PayoutView `json:"payouts"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// ViewPayout is p as the API shows it.
func ViewPayout(p payout.Payout) PayoutView { return payout.ViewOf(p) }

// RegisterPayouts mounts the payouts' merchant API: POST /api/payouts
// (signed as createorder, JSON, optional Idempotency-Key), GET
// /api/payouts and GET /api/payouts/:id (appid and query key).
func RegisterPayouts(r fiber.Router, a *payout.API, ips *platform.ClientIP) {
	r.Post("/api/payouts", payoutAsk(a, ips))
	r.Get("/api/payouts", payoutList(a))
	r.Get("/api/payouts/:id", payoutRead(a))
}

func payoutAsk(a *payout.API, ips *platform.ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		raw := c.Request().Header.Peek(command.HeaderIdempotencyKey)
		key := string(raw) // a copy: it outlives nothing of the request
		if raw != nil && (key == "" || len(key) > 128 || !validIdempotencyKey(raw)) {
			return platform.Errorf(platform.KindInvalidParameter, "header %s must be 1 to 128 printable ASCII characters", command.HeaderIdempotencyKey)
		}
		po, replayed, err := a.Ask(c.UserContext(), p, key, server.ClientAddr(ips, c).String())
		if err != nil {
			return err
		}
		if replayed {
			c.Set(HeaderIdempotentReplayed, "true")
		}
		return server.OK(c, ViewPayout(po))
	}
}

func payoutList(a *payout.API) fiber.Handler {
	return func(c *fiber.Ctx) error {
		acct, err := a.Admit(c.UserContext(), c.Query("appid"), c.Query("key"))
		if err != nil {
			return err
		}
		for _, n := range queryNames(c) {
			switch n {
			case "appid", "key", "before", "limit":
			default:
				return platform.Errorf(platform.KindInvalidParameter, "parameter %q is not known to this call", n)
			}
		}
		ps, next, err := a.ListPage(c.UserContext(), acct, c.Query("before"), c.Query("limit"))
		if err != nil {
			return err
		}
		out := PayoutsView{Payouts: make([]PayoutView, 0, len(ps)), NextCursor: next}
		for _, p := range ps {
			out.Payouts = append(out.Payouts, ViewPayout(p))
		}
		return server.OK(c, out)
	}
}

func payoutRead(a *payout.API) fiber.Handler {
	return func(c *fiber.Ctx) error {
		acct, err := a.Admit(c.UserContext(), c.Query("appid"), c.Query("key"))
		if err != nil {
			return err
		}
		p, err := a.Read(c.UserContext(), acct, c.Params("id"))
		if err != nil {
			return err
		}
		return server.OK(c, ViewPayout(p))
	}
}
