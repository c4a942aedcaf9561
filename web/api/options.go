package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
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
func fiatpspCurrencies(uc *command.UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if id := c.Query("paymentId"); id != "" {
			return fiatpspFor(c, uc.Confirm, id)
		}
		list, err := uc.Options.MerchantSystems(c.UserContext(), c.Query("appid"), c.Query("key"))
		if err != nil {
			return err
		}
		return server.OK(c, list)
	}
}

// fiatpspFor lists the systems with the order's quote in each. The answer
// has always carried the rate 1 for a system in the order's own currency.
func fiatpspFor(c *fiber.Ctx, o *command.ConfirmChoice, id string) error {
	ord, err := o.Awaiting(c.UserContext(), id, schema.MethodFiatPSP, schema.NextFiatpspSelect)
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
func cryptopspCurrencies(uc *command.UseCases) fiber.Handler {
	o := uc.Confirm
	return func(c *fiber.Ctx) error {
		ord, err := o.Awaiting(c.UserContext(), c.Query("paymentId"), schema.MethodCryptoPSP, schema.NextCryptopspSelect)
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
