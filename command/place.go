package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Rates is the FX the create path needs: the current rate of a pair.
type Rates interface {
	Rate(p fx.Pair) (fx.Rate, bool)
}

// place stores an order paid through a provider. An order whose payer
// chooses first is stored ready in one script, no provider asked. Otherwise
// the order is stored pending first and the provider asked after, so a
// replay never calls it twice and a slow provider holds nothing but this
// request; its answer moves the order to ready, or to failed.
func (h *CreateOrder) place(ctx context.Context, o *schema.Order, prov provider.Adapter, group string) (*schema.Order, bool, error) {
	if o.Method == schema.MethodUSDTDirect {
		if len(h.offer.For(o.Sandbox)) == 0 {
			return nil, false, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod usdt_direct has no USDT network configured")
		}
		lit, err := h.usdt.Reserve(ctx, o.ID, o.Amount, o.Currency)
		if err != nil {
			return nil, false, err
		}
		o.PayableAmount = lit
	}
	if err := h.init.charge(ctx, o, prov); err != nil {
		return nil, false, err
	}
	init, local := deferred(o)
	var cs []channel.Candidate
	switch {
	case !local:
		// Routed now, before anything is stored: no channel is a 400.
		var err error
		if cs, err = h.init.route.candidates(o, group, h.now()); err != nil {
			return nil, false, err
		}
	case routed(o.Method):
		// A provider method whose payer chooses first (fiatpsp, cryptopsp)
		// is routed at the confirm; offered now only if a channel may take
		// it. select, the default, asks nothing.
		if !h.init.route.router.Available(query(o, group, h.now())) {
			return nil, false, unavailable(o.Method)
		}
		applyInit(o, init)
	default:
		applyInit(o, init)
	}
	start := time.Now()
	id, created, err := h.store.Create(ctx, o)
	h.m.scriptTime.WithLabelValues("create").Observe(time.Since(start).Seconds())
	if err != nil {
		return nil, false, err
	}
	if !created {
		return h.replay(ctx, o, id)
	}
	if !local {
		if err := h.init.initRemote(ctx, o, cs); err != nil {
			return nil, false, err
		}
	}
	h.m.created.WithLabelValues(string(o.Method), o.Currency, mode(o.Sandbox)).Inc()
	return o, false, nil
}

// replay answers with the live order that holds the clientOrderId, and gives
// back the USDT amount this attempt reserved for nothing.
func (h *CreateOrder) replay(ctx context.Context, attempt *schema.Order, id string) (*schema.Order, bool, error) {
	if attempt.PayableAmount != "" {
		if err := h.usdt.Release(ctx, attempt.ID, attempt.PayableAmount); err != nil {
			h.log.Warn("release usdt amount of a replay", "err", err)
		}
	}
	o, err := h.store.Get(ctx, id)
	if err != nil {
		return nil, false, fmt.Errorf("read replayed order: %w", err)
	}
	h.m.replays.Inc()
	return o, true, nil
}

// paidBefore answers a balance create whose clientOrderId a balance order
// paid already: that order, as a replay. One past Redis's retention is
// still never paid again; the merchant is told which order paid it.
func (h *CreateOrder) paidBefore(ctx context.Context, o *schema.Order, id string) (*schema.Order, bool, error) {
	prior, err := h.store.Get(ctx, id)
	if errors.Is(err, ErrOrderNotFound) {
		return nil, false, platform.Errorf(platform.KindConflict, "clientOrderId %s was paid from balance by order %s; "+
			"a balance clientOrderId is paid once", o.ClientOrderID, id)
	}
	if err != nil {
		return nil, false, err
	}
	h.m.replays.Inc()
	return prior, true, nil
}

// payFromBalance stores a balance payment: the order is paid at once. Its
// clientOrderId, when given, is paid once for ever (SECURITY.md): a signed
// create replayed later answers the order it paid.
func (h *CreateOrder) payFromBalance(ctx context.Context, o *schema.Order) (*schema.Order, bool, error) {
	if o.ClientOrderID != "" {
		live, err := h.store.LiveByClientOrder(ctx, o.AppID, o.ClientOrderID)
		if err != nil {
			return nil, false, err
		}
		if live != nil {
			h.m.replays.Inc()
			return live, true, nil
		}
	}
	o.Status, o.PaidWithBalance, o.CompletedAt = schema.StatusPaid, true, o.CreatedAt
	start := time.Now()
	_, err := h.store.CreatePaidFromBalance(ctx, o)
	h.m.scriptTime.WithLabelValues("pay_balance").Observe(time.Since(start).Seconds())
	var before *PaidBeforeError
	switch {
	case errors.Is(err, ErrInsufficientBalance):
		return nil, false, platform.Errorf(platform.KindInsufficientFunds, "balance in %s does not cover amount %s", o.Currency, o.Amount)
	case errors.As(err, &before):
		return h.paidBefore(ctx, o, before.OrderID)
	case err != nil:
		return nil, false, err
	}
	h.m.created.WithLabelValues(string(o.Method), o.Currency, mode(o.Sandbox)).Inc()
	return o, false, nil
}
