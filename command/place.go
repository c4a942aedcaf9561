package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/command/provider"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// place stores an order paid through a provider. A local provider is asked
// first, so the order is stored ready in one script; a remote one is asked
// after the order is stored pending, so a replay never calls it twice.
func (h *CreateOrder) place(ctx context.Context, o *schema.Order, prov provider.Provider) (*schema.Order, bool, error) {
	if o.Method == schema.MethodUSDTDirect {
		lit, err := h.usdt.Reserve(ctx, o.ID, o.Amount, o.Currency)
		if err != nil {
			return nil, false, err
		}
		o.PayableAmount = lit
	}
	if prov.Local() {
		init, err := prov.Initialise(ctx, o)
		if err != nil {
			return nil, false, fmt.Errorf("initialise %s: %w", o.Method, err)
		}
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
	if !prov.Local() {
		if err := h.initRemote(ctx, o, prov); err != nil {
			return nil, false, err
		}
	}
	h.m.created.WithLabelValues(string(o.Method), o.Currency, mode(o.Sandbox)).Inc()
	return o, false, nil
}

func applyInit(o *schema.Order, init provider.Init) {
	o.ProviderURL, o.QRPayload, o.NextAction = init.ProviderURL, init.QRPayload, init.NextAction
	o.Status = schema.StatusReady
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

// initRemote asks a provider that does I/O, then moves the order to ready,
// or to failed when the provider refuses, so the merchant may retry with the
// same clientOrderId.
func (h *CreateOrder) initRemote(ctx context.Context, o *schema.Order, prov provider.Provider) error {
	init, err := prov.Initialise(ctx, o)
	if err != nil {
		if _, ferr := h.store.Transition(ctx, o.ID, schema.StatusFailed, h.now()); ferr != nil {
			h.log.Error("fail order after provider error", "order", o.ID, "err", ferr)
		}
		h.log.Warn("provider initialise failed", "method", o.Method, "err", err)
		return &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider is not answering; retry later", Err: err}
	}
	applyInit(o, init)
	o.Version++
	_, err = h.store.Transition(ctx, o.ID, schema.StatusReady, h.now(),
		schema.FProviderURL, init.ProviderURL, schema.FQRPayload, init.QRPayload, schema.FNextAction, init.NextAction)
	return err
}

// payFromBalance stores a balance payment: the order is paid at once.
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
	if errors.Is(err, ErrInsufficientBalance) {
		return nil, false, platform.Errorf(platform.KindInsufficientFunds, "balance in %s does not cover amount %s", o.Currency, o.Amount)
	}
	if err != nil {
		return nil, false, err
	}
	h.m.created.WithLabelValues(string(o.Method), o.Currency, mode(o.Sandbox)).Inc()
	return o, false, nil
}
