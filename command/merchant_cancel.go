package command

import (
	"context"
	"net/netip"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// cancelRequired are POST /api/order/cancel's required body fields, in the
// order the first missing one is named.
var cancelRequired = []string{"appid", "action", "paymentId", "sign"}

// CancelPost serves POST /api/order/cancel: the merchant cancels one of
// its own unpaid orders. The body is a JSON parameter set signed exactly
// like createorder's (appid, action=cancel, paymentId, optional clientip,
// sign), checked in createorder's order, so a merchant's signing code
// serves both. The answer is the order as GET /api/order shows it.
func (h *CreateOrder) CancelPost(c *fiber.Ctx) error {
	p, err := ParseJSONParams(c.Body())
	if err != nil {
		return err
	}
	o, err := h.merchantCancel(c.UserContext(), p, h.requestIP(c))
	if err != nil {
		return err
	}
	return platform.OK(c, schema.View(o, h.cfg.PublicURL))
}

// merchantCancel runs the check order, then the payer's cancel: pending or
// ready becomes cancelled with its event, cancelled stays so, paid, failed
// or a usdt_direct order under review is a conflict.
func (h *CreateOrder) merchantCancel(ctx context.Context, p schema.Params, ip netip.Addr) (*schema.Order, error) {
	for _, name := range cancelRequired {
		if p[name] == "" {
			return nil, platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	acct, err := h.authenticate(ctx, schema.CancelForm, p)
	if err != nil {
		return nil, err
	}
	// The create class: cancels are as rare and as costly as creates.
	if err := h.limiter.Allow(ctx, platform.ClassCreate, acct.AppID, merchant.Limit(acct.CreateLimit, h.cfg.CreateLimit)); err != nil {
		return nil, err
	}
	if claimed, given := p["clientip"]; given && !platform.SameIP(claimed, ip) {
		return nil, platform.Errorf(platform.KindClientIPMismatch, "Request IP does not match clientip")
	}
	if p["action"] != "cancel" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "action must be cancel")
	}
	id := p["paymentId"]
	o, err := h.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.AppID != acct.AppID { // another merchant's order is not there for this one
		return nil, orderNotFound(id)
	}
	return h.Cancel(ctx, id)
}
