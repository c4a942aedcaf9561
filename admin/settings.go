package admin

import (
	"strconv"
	"strings"
	"time"

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
}

// settings are SPEC.md's Advanced Settings: FX rates with who set them and
// when, and the USDT networks with their review modes.
func (c *Console) settings(ctx *fiber.Ctx) error {
	actor := c.ui.Actor(ctx)
	cur, hist, err := c.d.Settings.Rates(ctx.UserContext(), actor, 50)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	nets, err := c.d.Settings.Networks(ctx.UserContext(), actor)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "settings", "title_settings", settingsData{Current: cur, History: hist, Networks: nets,
		Modes: []string{string(usdt.ModeChain), string(usdt.ModeExchange), string(usdt.ModeDual), string(usdt.ModeExchangePay)},
		Names: usdt.NetworkNames})
}

func (c *Console) setRate(ctx *fiber.Ctx) error {
	_, err := c.d.Settings.SetRate(ctx.UserContext(), c.ui.Actor(ctx), form(ctx, "base"), form(ctx, "quote"), form(ctx, "rate"), form(ctx, "confirm") == "1")
	return c.after(ctx, err, "/settings", "rate")
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

type providersData struct {
	Rows   []operator.ProviderHealth
	Window string
}

func (c *Console) providers(ctx *fiber.Ctx) error {
	rows, err := c.d.Health.Providers(ctx.UserContext(), c.ui.Actor(ctx), time.Hour)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "providers", "title_providers", providersData{Rows: rows, Window: "1h"})
}
