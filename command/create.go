package command

import (
	"context"
	"log/slog"
	"net/netip"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// CreateOrder is a merchant's create: one code path from parameters to a
// stored order, which POST /api/createorder answers as JSON and GET as the
// hosted page (web/api/create.go). It is the hot path: every request runs it
// once, so it holds its collaborators directly.
type CreateOrder struct {
	cfg       Config
	signed    *signedCalls
	store     *Store
	providers *provider.Registry
	usdt      *USDT
	offer     *usdtOffer
	limits    MethodLimits
	init      *initiator
	log       *slog.Logger
	m         *metrics
	now       func() time.Time
}

// Create runs DESIGN.md's check order, then stores the order. It returns the
// order as the merchant should see it, and whether it is a replay. hosted
// is the GET flow, whose signed URL sits in the payer's browser.
func (h *CreateOrder) Create(ctx context.Context, p schema.Params, ip netip.Addr, hosted bool) (*schema.Order, bool, error) {
	if err := checkRequired(p); err != nil {
		return nil, false, err
	}
	acct, err := h.signed.authenticate(ctx, schema.CreateForm, p)
	if err != nil {
		return nil, false, err
	}
	// Limited once the merchant is proven: an unsigned flood naming an appid
	// must not spend that merchant's limit.
	if err := h.signed.allow(ctx, acct); err != nil {
		return nil, false, err
	}
	if !platform.SameIP(p["clientip"], ip) {
		return nil, false, platform.Errorf(platform.KindClientIPMismatch, "Request IP does not match clientip")
	}
	req, err := parseCreate(p)
	if err != nil {
		return nil, false, err
	}
	if hosted && req.method == schema.MethodBalance && req.clientOrderID == "" {
		// Without one a reload of the URL could not be told from a new order.
		return nil, false, invalid("clientOrderId is required with paymentMethod=balance on GET /api/createorder: " +
			"it makes a reloaded or replayed URL pay once")
	}
	return h.createChecked(ctx, acct, req)
}

// createChecked is every door's create once the merchant is proven, rate
// limited and its values passed their rules: the method's provider, the
// merchant's limits, the order, its fee, then payment from the balance or
// the order placed with its provider.
func (h *CreateOrder) createChecked(ctx context.Context, acct *merchant.Account, req *createRequest) (*schema.Order, bool, error) {
	prov, ok := h.providers.For(req.method, acct.Sandbox)
	if !ok && req.method != schema.MethodBalance {
		return nil, false, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available for this merchant", req.method)
	}
	if err := h.limits.check(acct, req.method, req.amount, req.currency); err != nil {
		return nil, false, err
	}
	o := h.newOrder(acct, req)
	h.init.recordFee(o)
	if req.method == schema.MethodBalance {
		return h.payFromBalance(ctx, o)
	}
	return h.place(ctx, o, prov, acct.Group)
}

func (h *CreateOrder) newOrder(acct *merchant.Account, r *createRequest) *schema.Order {
	now := h.now().UTC()
	shard := schema.RandomShard()
	switch {
	case r.method == schema.MethodBalance:
		shard = schema.HomeShard(acct.AppID)
	case r.clientOrderID != "":
		shard = schema.ShardFor(acct.AppID, r.clientOrderID)
	}
	notify := r.notifyURL
	if notify == "" {
		notify = acct.Callback
	}
	allowed := ""
	for i, m := range r.allowed {
		if i > 0 {
			allowed += ","
		}
		allowed += string(m)
	}
	return &schema.Order{
		ID: schema.NewOrderID(now, shard), AppID: acct.AppID, Sandbox: acct.Sandbox,
		ClientOrderID: r.clientOrderID, Amount: r.amount, Currency: r.currency, Method: r.method,
		Status: schema.StatusPending, Description: r.description, CustomerName: r.customerName,
		CustomerEmail: r.customerEmail, CustomerPhone: r.customerPhone, NotifyURL: notify,
		ReturnURL: r.returnURL, Lang: r.lang, AllowedMethods: allowed, FiatpspSystemID: r.fiatpspSystemID,
		ClientIP: r.clientIP, Door: r.door, DoorType: r.doorType, DoorParam: r.doorParam,
		CreatedAt: now, UpdatedAt: now, Version: 1,
	}
}
