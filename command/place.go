package command

import (
	"context"
	"errors"
	"fmt"
	"time"

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
func (h *CreateOrder) place(ctx context.Context, o *schema.Order, prov provider.Adapter) (*schema.Order, bool, error) {
	if o.Method == schema.MethodUSDTDirect {
		if len(h.USDTNetworks(o.Sandbox)) == 0 {
			return nil, false, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod usdt_direct has no USDT network configured")
		}
		lit, err := h.usdt.Reserve(ctx, o.ID, o.Amount, o.Currency)
		if err != nil {
			return nil, false, err
		}
		o.PayableAmount = lit
	}
	if err := h.charge(ctx, o, prov); err != nil {
		return nil, false, err
	}
	p := h.payment(o)
	init, local := provider.Deferred(p)
	if local {
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
		if err := h.initRemote(ctx, o, prov, p); err != nil {
			return nil, false, err
		}
	}
	h.m.created.WithLabelValues(string(o.Method), o.Currency, mode(o.Sandbox)).Inc()
	return o, false, nil
}

// chargedInBDT are the methods whose providers charge a USD order in BDT at
// the system rate (SPEC.md's method table).
var chargedInBDT = map[schema.Method]bool{schema.MethodBDCard: true, schema.MethodBDPSPA: true, schema.MethodBDPSPB: true}

// charge records what the provider will charge when it is not the order's
// own amount, at the current rate, once: a notification is checked against
// it, never against a later rate. A fiatpsp order with its payment system
// is charged in the system's currency.
func (h *CreateOrder) charge(ctx context.Context, o *schema.Order, prov provider.Adapter) error {
	switch {
	case chargedInBDT[o.Method]:
		return h.chargeIn(o, "BDT")
	case o.Method == schema.MethodFiatPSP && o.FiatpspSystemID != "":
		sys, err := h.options.system(ctx, prov, o.Sandbox, o.FiatpspSystemID)
		if err != nil {
			return err
		}
		return h.chargeIn(o, sys.Currency)
	}
	return nil
}

// chargeIn records o's charge in currency cur at the current rate; in its
// own currency, nothing is recorded.
func (h *CreateOrder) chargeIn(o *schema.Order, cur string) error {
	if cur == o.Currency {
		return nil
	}
	pair := fx.Pair{Base: o.Currency, Quote: cur}
	r, ok := h.rates.Rate(pair)
	if !ok {
		return platform.Errorf(platform.KindMethodUnavailable, "no %s to %s rate is set for paymentMethod %s", o.Currency, cur, o.Method)
	}
	o.ChargeAmount, o.ChargeCurrency, o.FXRate = fx.Convert(o.Amount, r), cur, r.String()
	return nil
}

// payment is what the adapter is told about o.
func (h *CreateOrder) payment(o *schema.Order) provider.Payment {
	amt, cur := o.Charge()
	p := provider.Payment{
		OrderID: o.ID, Method: o.Method, Charge: provider.Money{Amount: amt, Currency: cur},
		Description: o.Description, CustomerName: o.CustomerName, CustomerEmail: o.CustomerEmail,
		CustomerPhone: o.CustomerPhone, ClientIP: o.ClientIP, SystemID: o.FiatpspSystemID, PayCurrency: o.PayCurrency,
		ExpiresAt: o.CreatedAt.Add(h.store.TTL(o.Method)),
	}
	if o.ChargeCurrency != "" {
		p.Original = provider.Money{Amount: o.Amount, Currency: o.Currency}
	}
	p.NotifyURL, p.SuccessURL, p.FailURL, p.CancelURL = h.cfg.ProviderURLs(o)
	return p
}

func applyInit(o *schema.Order, init provider.Init) {
	o.ProviderURL, o.QRPayload, o.NextAction, o.ProviderRef = init.ProviderURL, init.QRPayload, init.NextAction, init.Ref
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

// initRemote asks the provider, within its time-out, then moves the order to
// ready, or to failed when the provider refuses or does not answer, so the
// order says what happened and the merchant may retry with the same
// clientOrderId.
func (h *CreateOrder) initRemote(ctx context.Context, o *schema.Order, prov provider.Adapter, p provider.Payment) error {
	init, err := prov.Initialise(ctx, p)
	if err != nil {
		return h.providerFailed(ctx, o, err)
	}
	applyInit(o, init)
	o.Version++
	_, err = h.store.Transition(ctx, o.ID, schema.StatusReady, h.now(),
		schema.FProviderURL, init.ProviderURL, schema.FQRPayload, init.QRPayload, schema.FNextAction, init.NextAction,
		schema.FProviderRef, init.Ref)
	return err
}

// providerFailed fails o after its provider refused or did not answer, and
// is the error the caller sees.
func (h *CreateOrder) providerFailed(ctx context.Context, o *schema.Order, err error) error {
	if _, ferr := h.store.Transition(context.WithoutCancel(ctx), o.ID, schema.StatusFailed, h.now()); ferr != nil {
		h.log.Error("fail order after provider error", "order", o.ID, "err", ferr)
	}
	o.Status = schema.StatusFailed
	h.log.Warn("provider initialise failed", "method", o.Method, "order", o.ID, "err", err)
	if errors.Is(err, provider.ErrRefused) {
		return &platform.Error{Kind: platform.KindProviderRefused, Msg: "the payment provider refused the payment; order " + o.ID + " is failed", Err: err}
	}
	return &platform.Error{Kind: platform.KindUnavailable, Msg: "the payment provider did not answer; order " + o.ID + " is failed, retry later", Err: err}
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
