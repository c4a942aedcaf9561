package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Confirm serves a merchant's choice on the two-step flows as JSON, which
// initialises the provider the create deferred: POST /api/fiatpsp/confirm
// (paymentId, fiatpspSystemId) and POST /api/cryptopsp/confirm (paymentId,
// pay_currency), each with appid and sign like createorder (see
// signedChoice). The payer chooses on our pages instead, with their CSRF
// token. The use cases (ConfirmFiatpsp, ConfirmCryptopsp) are the
// CreateOrder's, which the checkout's pages call too.
type Confirm struct {
	create *CreateOrder
}

// NewConfirm wires the confirmations.
func (h *CreateOrder) NewConfirm() *Confirm { return &Confirm{create: h} }

// Fiatpsp confirms a payment system.
func (h *Confirm) Fiatpsp(c *fiber.Ctx) error {
	p, o, err := h.signedChoice(c, "fiatpspSystemId")
	if err != nil {
		return err
	}
	o, err = h.create.ConfirmFiatpsp(c.UserContext(), o.ID, p["fiatpspSystemId"])
	if err != nil {
		return err
	}
	return h.answer(c, o)
}

// Cryptopsp confirms a cryptocurrency.
func (h *Confirm) Cryptopsp(c *fiber.Ctx) error {
	p, o, err := h.signedChoice(c, "pay_currency")
	if err != nil {
		return err
	}
	o, err = h.create.ConfirmCryptopsp(c.UserContext(), o.ID, p["pay_currency"])
	if err != nil {
		return err
	}
	return h.answer(c, o)
}

func (h *Confirm) answer(c *fiber.Ctx, o *schema.Order) error {
	base := h.create.cfg.PublicURL
	l := schema.OrderLinks(o, base)
	return platform.OK(c, fiber.Map{"paymentId": o.ID, "redirectUrl": l.MerchantRedirect(base, o.ID),
		"chargeAmount": chargeView(o), "status": int(o.Status), "status_str": o.Status.String()})
}

// ConfirmFiatpsp fixes the fiatpsp payment system systemID on order id,
// charged in the system's currency at the rate of this moment, then
// initialises the provider. It returns the order as it is now.
func (h *CreateOrder) ConfirmFiatpsp(ctx context.Context, id, systemID string) (*schema.Order, error) {
	o, a, err := h.awaiting(ctx, id, schema.MethodFiatPSP, schema.NextFiatpspSelect)
	if err != nil {
		return nil, err
	}
	sys, err := h.options.system(ctx, a, o.Sandbox, systemID)
	if err != nil {
		return nil, err
	}
	o.FiatpspSystemID = strconv.Itoa(sys.ID)
	if err := h.chargeIn(o, sys.Currency); err != nil {
		return nil, err
	}
	return h.confirmed(ctx, o, a, schema.FFiatpspSys, o.FiatpspSystemID)
}

// ConfirmCryptopsp fixes the cryptocurrency payCurrency on order id, after
// the provider's minimum for the pair: an order below it is refused with
// the minimum, nothing changed.
func (h *CreateOrder) ConfirmCryptopsp(ctx context.Context, id, payCurrency string) (*schema.Order, error) {
	o, a, err := h.awaiting(ctx, id, schema.MethodCryptoPSP, schema.NextCryptopspSelect)
	if err != nil {
		return nil, err
	}
	opt, err := h.options.crypto(ctx, a, o, payCurrency)
	if err != nil {
		return nil, err
	}
	if !opt.Enabled {
		return nil, platform.Errorf(platform.KindBelowMinimum, "the amount %s %s is below the minimum %s %s for %s", o.Amount, o.Currency, opt.Min, o.Currency, schema.CryptoName(payCurrency))
	}
	o.PayCurrency = payCurrency
	return h.confirmed(ctx, o, a, schema.FPayCurrency, payCurrency)
}

// confirmed fixes the choice (once), then asks the provider.
func (h *CreateOrder) confirmed(ctx context.Context, o *schema.Order, a provider.Adapter, field, value string) (*schema.Order, error) {
	if err := h.fixChoice(ctx, o, o.NextAction, field, value); err != nil {
		return nil, err
	}
	if err := h.initChosen(ctx, o, a); err != nil {
		return nil, err
	}
	return h.Order(ctx, o.ID)
}

// awaiting loads a live order of method still waiting for the payer's choice.
func (h *CreateOrder) awaiting(ctx context.Context, id string, m schema.Method, next string) (*schema.Order, provider.Adapter, error) {
	o, err := h.store.Get(ctx, id)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && o.Method != m) {
		return nil, nil, platform.Errorf(platform.KindNotFound, "no %s order %s", m, id)
	}
	if err != nil {
		return nil, nil, err
	}
	if !o.Status.Live() || o.NextAction != next {
		return nil, nil, platform.Errorf(platform.KindConflict, "order %s is %s and takes no choice now", id, o.Status)
	}
	a, ok := h.providers.For(m, o.Sandbox)
	if !ok {
		return nil, nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available", m)
	}
	return o, a, nil
}

// chargeView is what the payer is charged, for the answer.
func chargeView(o *schema.Order) string {
	amt, cur := o.Charge()
	return fmt.Sprintf("%s %s", amt, cur)
}
