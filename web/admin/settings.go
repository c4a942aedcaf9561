package admin

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/usdt"
)

type settingsData struct {
	Current, History []fx.Entry
	Networks         []usdt.Network
	Modes            []string
	Names            []string
	Rate             rateForm
}

// rateForm is the FX form's input, kept when a rate far from the current
// one is sent back for confirmation, with what the person needs to decide:
// the deviation and the pair's last rates.
type rateForm struct {
	Base, Quote, Rate string
	Deviation         *fx.DeviationError
	Recent            []fx.Entry
}

// pairRecent is how many of the pair's last rates a confirmation shows.
const pairRecent = 5

// settings are SPEC.md's Advanced Settings: FX rates with who set them and
// when, and the USDT networks with their review modes.
func (c *Console) settings(ctx *fiber.Ctx) error {
	d, err := c.settingsData(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d.Rate.Base = "USDT"
	return c.page(ctx, "settings", "title_settings", d)
}

func (c *Console) settingsData(ctx *fiber.Ctx) (settingsData, error) {
	actor := c.ui.Actor(ctx)
	cur, hist, err := c.d.Settings.Rates(ctx.UserContext(), actor, 50)
	if err != nil {
		return settingsData{}, err
	}
	nets, err := c.d.Settings.Networks(ctx.UserContext(), actor)
	if err != nil {
		return settingsData{}, err
	}
	return settingsData{Current: cur, History: hist, Networks: nets,
		Modes: []string{string(usdt.ModeChain), string(usdt.ModeExchange), string(usdt.ModeDual), string(usdt.ModeExchangePay)},
		Names: usdt.NetworkNames}, nil
}

// setRate sets a rate; one the use case finds too far from the current
// rate comes back on the page, the input kept, with the deviation, the
// pair's last rates and a confirmation to send it again with.
func (c *Console) setRate(ctx *fiber.Ctx) error {
	in := rateForm{Base: form(ctx, "base"), Quote: form(ctx, "quote"), Rate: form(ctx, "rate")}
	actor := c.ui.Actor(ctx)
	_, err := c.d.Settings.SetRate(ctx.UserContext(), actor, in.Base, in.Quote, in.Rate, form(ctx, "confirm") == "1")
	if !errors.As(err, &in.Deviation) {
		return c.after(ctx, err, "/settings", "rate")
	}
	d, err := c.settingsData(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if in.Recent, err = c.d.Settings.PairHistory(ctx.UserContext(), actor, in.Base, in.Quote, pairRecent); err != nil {
		return c.ui.Fail(ctx, err)
	}
	d.Rate = in
	v := c.ui.View(ctx, "title_settings")
	v.Data, v.Status = d, fiber.StatusConflict
	return c.ui.Render(ctx, "settings", v)
}

// setNetwork changes the fields the form filled in; an empty field keeps
// the network's value, as the CLI's flags not given do.
func (c *Console) setNetwork(ctx *fiber.Ctx) error {
	ch := operator.NetworkChange{Name: form(ctx, "name"), Sandbox: form(ctx, "sandbox") == "1"}
	if v := form(ctx, "addresses"); v != "" {
		a := strings.Split(v, ",")
		ch.Addresses = &a
	}
	if v := form(ctx, "mode"); v != "" {
		ch.Mode = &v
	}
	if v := form(ctx, "confirmations"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "confirmations must be a whole number"))
		}
		ch.Confirmations = &n
	}
	_, err := c.d.Settings.SetNetwork(ctx.UserContext(), c.ui.Actor(ctx), ch)
	return c.after(ctx, err, "/settings", "network")
}
