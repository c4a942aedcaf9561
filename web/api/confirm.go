package api

import (
	"bytes"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// The API form of the two-step confirmations is a merchant's server call,
// signed like createorder: whoever holds only a paymentId (the payer, or
// anyone the payer's browser leaked it to) must not fix the payer's choice,
// or the payer's own choice on our page would then meet a 409. The payer's
// page posts to the same paths with its CSRF token and is answered by the
// checkout before this runs.

// The forms of the signed confirms (schema.SignedForm): their names only,
// no '&' in a value, so no other parameter set signs to the same string.
var confirmForms = map[string]schema.SignedForm{
	"fiatpspSystemId": schema.NewSignedForm([]string{"appid", "paymentId", "fiatpspSystemId"}, nil),
	"pay_currency":    schema.NewSignedForm([]string{"appid", "paymentId", "pay_currency"}, nil),
}

// signedChoice reads and authenticates a merchant's confirm carrying the
// choice parameter, and returns the merchant's order it names.
func signedChoice(c *fiber.Ctx, h *command.ConfirmChoice, choice string) (schema.Params, *schema.Order, error) {
	p, err := confirmBody(c)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range []string{"appid", "paymentId", choice, "sign"} {
		if p[name] == "" {
			return nil, nil, platform.Errorf(platform.KindMissingParameter, "parameter %s is required: a confirm by API is the merchant's signed call", name)
		}
	}
	o, err := h.OwnOrder(c.UserContext(), confirmForms[choice], p)
	if err != nil {
		return nil, nil, err
	}
	return p, o, nil
}

// confirmBody is the request's parameters: a JSON object, or a form.
func confirmBody(c *fiber.Ctx) (schema.Params, error) {
	if bytes.HasPrefix(c.Request().Header.ContentType(), []byte(fiber.MIMEApplicationJSON)) {
		return command.ParseJSONParams(c.Body())
	}
	if len(c.Body()) > command.MaxBody {
		return nil, platform.Errorf(platform.KindTooLarge, "request body is larger than 64 KiB")
	}
	return command.ParseQueryParams(c.Request().PostArgs())
}

// confirmFiatpsp serves POST /api/fiatpsp/confirm by API: a merchant's
// signed call (signedChoice), then ConfirmChoice.ConfirmFiatpsp. The payer
// posts to the same path from our page, answered by the checkout first.
func confirmFiatpsp(uc *command.UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, o, err := signedChoice(c, uc.Confirm, "fiatpspSystemId")
		if err != nil {
			return err
		}
		if o, err = uc.Confirm.ConfirmFiatpsp(c.UserContext(), o.ID, p["fiatpspSystemId"]); err != nil {
			return err
		}
		return confirmAnswer(c, o, uc.PublicURL())
	}
}

// confirmCryptopsp serves POST /api/cryptopsp/confirm by API.
func confirmCryptopsp(uc *command.UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, o, err := signedChoice(c, uc.Confirm, "pay_currency")
		if err != nil {
			return err
		}
		if o, err = uc.Confirm.ConfirmCryptopsp(c.UserContext(), o.ID, p["pay_currency"]); err != nil {
			return err
		}
		return confirmAnswer(c, o, uc.PublicURL())
	}
}

func confirmAnswer(c *fiber.Ctx, o *schema.Order, base string) error {
	l := schema.OrderLinks(o, base)
	return server.OK(c, fiber.Map{"paymentId": o.ID, "redirectUrl": l.MerchantRedirect(base, o.ID),
		"chargeAmount": chargeView(o), "status": int(o.Status), "status_str": o.Status.String()})
}

// chargeView is what the payer is charged, for the answer.
func chargeView(o *schema.Order) string {
	amt, cur := o.Charge()
	return fmt.Sprintf("%s %s", amt, cur)
}
