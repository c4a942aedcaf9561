package command

import (
	"bytes"
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
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
func (h *Confirm) signedChoice(c *fiber.Ctx, choice string) (schema.Params, *schema.Order, error) {
	p, err := confirmBody(c)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range []string{"appid", "paymentId", choice, "sign"} {
		if p[name] == "" {
			return nil, nil, platform.Errorf(platform.KindMissingParameter, "parameter %s is required: a confirm by API is the merchant's signed call", name)
		}
	}
	o, err := h.create.ownOrder(c.UserContext(), confirmForms[choice], p)
	if err != nil {
		return nil, nil, err
	}
	return p, o, nil
}

// confirmBody is the request's parameters: a JSON object, or a form.
func confirmBody(c *fiber.Ctx) (schema.Params, error) {
	if bytes.HasPrefix(c.Request().Header.ContentType(), []byte(fiber.MIMEApplicationJSON)) {
		return ParseJSONParams(c.Body())
	}
	if len(c.Body()) > maxBody {
		return nil, platform.Errorf(platform.KindTooLarge, "request body is larger than 64 KiB")
	}
	return ParseQueryParams(c.Request().PostArgs())
}

// ownOrder runs the signed-call checks (form, appid, enabled, sign, the create
// rate class) and reads the order p names, which must be the merchant's:
// another's is not found, as on every merchant API.
func (h *CreateOrder) ownOrder(ctx context.Context, form schema.SignedForm, p schema.Params) (*schema.Order, error) {
	acct, err := h.authenticate(ctx, form, p)
	if err != nil {
		return nil, err
	}
	if err := h.limiter.Allow(ctx, platform.ClassCreate, acct.AppID, merchant.Limit(acct.CreateLimit, h.cfg.CreateLimit)); err != nil {
		return nil, err
	}
	o, err := h.Order(ctx, p["paymentId"])
	if err == nil && o.AppID != acct.AppID {
		return nil, orderNotFound(p["paymentId"])
	}
	return o, err
}
