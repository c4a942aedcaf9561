package admin

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/operator"
)

// epayTypePages are the epay door's type words (docs/epay-api.md): every
// operator reads them, the admin sets or resets them, each change an audit
// entry (operator.EpayTypes checks the role again).
type epayTypePages struct {
	screen
	types *operator.EpayTypes
}

const epayTypesPath = "/epay-types"

func (p epayTypePages) register(g fiber.Router) {
	r := p.ui.Require
	g.Get(epayTypesPath, r(access.PermSettingsRead), p.page)
	g.Post(epayTypesPath, r(access.PermChannelsWrite), p.set)
	g.Post(epayTypesPath+"/reset", r(access.PermChannelsWrite), p.reset)
}

func (p epayTypePages) page(ctx *fiber.Ctx) error {
	v, err := p.types.View(ctx.UserContext(), p.ui.Actor(ctx))
	if err != nil {
		return p.ui.Fail(ctx, err)
	}
	return p.screen.page(ctx, "epay_types", "title_epay_types", v)
}

func (p epayTypePages) set(ctx *fiber.Ctx) error {
	err := p.types.Set(ctx.UserContext(), p.ui.Actor(ctx), form(ctx, "mapping"))
	return p.after(ctx, err, epayTypesPath, "epay_types")
}

func (p epayTypePages) reset(ctx *fiber.Ctx) error {
	err := p.types.Reset(ctx.UserContext(), p.ui.Actor(ctx))
	return p.after(ctx, err, epayTypesPath, "epay_types")
}
