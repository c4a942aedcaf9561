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

// Confirm serves the payer's choice on the two-step flows, which initialises
// the provider the create deferred: POST /api/fiatpsp/confirm (paymentId,
// fiatpspSystemId) and POST /api/cryptopsp/confirm (paymentId, pay_currency).
// The payer holds only the unguessable paymentId; the pages of the checkout
// post here. A choice is fixed once: an order change with its event, guarded
// so that two confirms race to one winner.
type Confirm struct {
	create  *CreateOrder
	options *Options
}

// NewConfirm wires the confirmations.
func (h *CreateOrder) NewConfirm() *Confirm { return &Confirm{create: h, options: h.options} }

// Fiatpsp confirms a payment system.
func (h *Confirm) Fiatpsp(c *fiber.Ctx) error {
	ctx := c.UserContext()
	o, a, err := h.awaiting(ctx, formOrQuery(c, "paymentId"), schema.MethodFiatPSP, schema.NextFiatpspSelect)
	if err != nil {
		return err
	}
	sys, err := h.options.system(ctx, a, o.Sandbox, formOrQuery(c, "fiatpspSystemId"))
	if err != nil {
		return err
	}
	o.FiatpspSystemID = strconv.Itoa(sys.ID)
	if err := h.create.chargeIn(o, sys.Currency); err != nil {
		return err
	}
	return h.choose(c, o, a, schema.FFiatpspSys, o.FiatpspSystemID)
}

// Cryptopsp confirms a cryptocurrency, after the provider's minimum for the
// pair: an order below it is refused with the minimum, nothing changed.
func (h *Confirm) Cryptopsp(c *fiber.Ctx) error {
	ctx := c.UserContext()
	o, a, err := h.awaiting(ctx, formOrQuery(c, "paymentId"), schema.MethodCryptoPSP, schema.NextCryptopspSelect)
	if err != nil {
		return err
	}
	cur := formOrQuery(c, "pay_currency")
	opt, err := h.options.crypto(ctx, a, o, cur)
	if err != nil {
		return err
	}
	if !opt.Enabled {
		return platform.Errorf(platform.KindBelowMinimum, "the amount %s %s is below the minimum %s %s for %s", o.Amount, o.Currency, opt.Min, o.Currency, cur)
	}
	o.PayCurrency = cur
	return h.choose(c, o, a, schema.FPayCurrency, cur)
}

// awaiting loads a live order of method still waiting for the payer's choice.
func (h *Confirm) awaiting(ctx context.Context, id string, m schema.Method, next string) (*schema.Order, provider.Adapter, error) {
	o, err := h.create.store.Get(ctx, id)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && o.Method != m) {
		return nil, nil, platform.Errorf(platform.KindNotFound, "no %s order %s", m, id)
	}
	if err != nil {
		return nil, nil, err
	}
	if !o.Status.Live() || o.NextAction != next {
		return nil, nil, platform.Errorf(platform.KindConflict, "order %s is %s and takes no choice now", id, o.Status)
	}
	a, ok := h.create.providers.For(m, o.Sandbox)
	if !ok {
		return nil, nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available", m)
	}
	return o, a, nil
}

// choose fixes the choice on the order (once), then asks the provider and
// records its answer, or fails the order when it does not answer.
func (h *Confirm) choose(c *fiber.Ctx, o *schema.Order, a provider.Adapter, field, value string) error {
	ctx, cr := c.UserContext(), h.create
	charged := ""
	if o.ChargeCurrency != "" {
		charged = strconv.FormatInt(int64(o.ChargeAmount), 10)
	}
	fields := []string{schema.FNextAction, "", field, value,
		schema.FChargeAmt, charged, schema.FChargeCur, o.ChargeCurrency, schema.FFXRate, o.FXRate}
	applied, err := cr.store.Update(ctx, o.ID, []schema.Status{schema.StatusReady}, schema.FNextAction, o.NextAction, cr.now(), fields...)
	if err != nil {
		return err
	}
	if !applied {
		return platform.Errorf(platform.KindConflict, "order %s was confirmed already", o.ID)
	}
	o.NextAction = ""
	init, err := a.Initialise(ctx, cr.payment(o))
	if err != nil {
		return cr.providerFailed(ctx, o, err)
	}
	applyInit(o, init)
	if _, err := cr.store.Update(ctx, o.ID, []schema.Status{schema.StatusReady}, schema.FProviderRef, "", cr.now(),
		schema.FProviderURL, init.ProviderURL, schema.FQRPayload, init.QRPayload, schema.FProviderRef, init.Ref); err != nil {
		return err
	}
	l := schema.OrderLinks(o, cr.cfg.PublicURL)
	return platform.OK(c, fiber.Map{"paymentId": o.ID, "redirectUrl": l.MerchantRedirect(cr.cfg.PublicURL, o.ID),
		"chargeAmount": chargeView(o), "status": int(o.Status), "status_str": o.Status.String()})
}

// chargeView is what the payer is charged, for the answer.
func chargeView(o *schema.Order) string {
	amt, cur := o.Charge()
	return fmt.Sprintf("%s %s", amt, cur)
}
