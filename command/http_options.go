package command

import (
	"github.com/paygate/gateway/web/server"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// systemView is one payment system in GET /api/fiatpsp/currencies.
type systemView struct {
	provider.System
	Quote     string `json:"quote,omitempty"` // what the payer is charged, in the system's currency
	Rate      string `json:"rate,omitempty"`
	Available bool   `json:"available"`
}

// cryptoView is one cryptocurrency in GET /api/cryptopsp/currencies.
type cryptoView struct {
	Currency string `json:"currency"`
	MinLit   string `json:"minAmount"`
	Enabled  bool   `json:"enabled"`
}

// fiatpspCurrencies serves GET /api/fiatpsp/currencies.
func fiatpspCurrencies(uc *UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error { return uc.Options.fiatpspCurrencies(c, uc.Confirm) }
}

func (o *Options) fiatpspCurrencies(c *fiber.Ctx, confirm *ConfirmChoice) error {
	ctx := c.UserContext()
	if id := c.Query("paymentId"); id != "" {
		return fiatpspFor(c, confirm, id)
	}
	acct, err := o.accounts.AuthQuery(ctx, c.Query("appid"), c.Query("key"))
	if err != nil {
		return err
	}
	a, ok := o.providers.For(schema.MethodFiatPSP, acct.Sandbox)
	if !ok {
		return platform.Errorf(platform.KindMethodUnavailable, "paymentMethod fiatpsp is not available for this merchant")
	}
	list, err := o.systems(ctx, a, acct.Sandbox)
	if err != nil {
		return err
	}
	return server.OK(c, list)
}

// fiatpspFor lists the systems with the order's quote in each. The answer
// has always carried the rate 1 for a system in the order's own currency.
func fiatpspFor(c *fiber.Ctx, o *ConfirmChoice, id string) error {
	ord, _, err := o.awaiting(c.UserContext(), id, schema.MethodFiatPSP, schema.NextFiatpspSelect)
	if err != nil {
		return err
	}
	list, err := o.FiatpspSystems(c.UserContext(), ord)
	if err != nil {
		return err
	}
	out := make([]systemView, len(list))
	for i, s := range list {
		out[i] = systemView{System: provider.System{ID: s.ID, Name: s.Name, Currency: s.Currency}, Rate: s.Rate, Available: s.Available}
		if s.Available {
			out[i].Quote = s.Quote.String()
			if s.Rate == "" {
				out[i].Rate = fx.Rate(fx.Micros).String()
			}
		}
	}
	return server.OK(c, fiber.Map{"paymentId": ord.ID, "amount": ord.Amount.String(), "currency": ord.Currency, "systems": out})
}

// cryptopspCurrencies serves GET /api/cryptopsp/currencies?paymentId=: each
// cryptocurrency with the provider's minimum for the order; one below it is
// shown disabled.
func cryptopspCurrencies(uc *UseCases) fiber.Handler {
	o := uc.Confirm
	return func(c *fiber.Ctx) error {
		ord, _, err := o.awaiting(c.UserContext(), c.Query("paymentId"), schema.MethodCryptoPSP, schema.NextCryptopspSelect)
		if err != nil {
			return err
		}
		list, err := o.CryptoCurrencies(c.UserContext(), ord)
		if err != nil {
			return err
		}
		out := make([]cryptoView, len(list))
		for i, opt := range list {
			out[i] = cryptoView{Currency: opt.Currency, MinLit: opt.Min.String(), Enabled: opt.Enabled}
		}
		return server.OK(c, fiber.Map{"paymentId": ord.ID, "amount": ord.Amount.String(), "currency": ord.Currency, "currencies": out})
	}
}
