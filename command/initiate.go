package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// initiator is what create, the select page's choice and the two-step
// confirms share: what the provider will charge, what it is told, asking
// it, and failing the order when it refuses. It is a part of those use
// cases, not one of its own.
type initiator struct {
	cfg     Config
	store   *Store
	options *Options
	rates   Rates
	fees    FeeSchedules
	route   *routes
	groups  Accounts // the merchant's group, which channels may serve
	log     *slog.Logger
	now     func() time.Time
}

// chargedInBDT are the methods whose providers charge a USD order in BDT at
// the system rate (SPEC.md's method table).
var chargedInBDT = map[schema.Method]bool{schema.MethodBDCard: true, schema.MethodBDPSPA: true, schema.MethodBDPSPB: true}

// charge records what the provider will charge when it is not the order's
// own amount, at the current rate, once: a notification is checked against
// it, never against a later rate. A fiatpsp order with its payment system
// is charged in the system's currency.
func (h *initiator) charge(ctx context.Context, o *schema.Order, prov provider.Adapter) error {
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
func (h *initiator) chargeIn(o *schema.Order, cur string) error {
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
func (h *initiator) payment(o *schema.Order) provider.Payment {
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

// deferred is provider.Deferred of o's payment, from the only fields it
// reads: an order the payer completes on our pages (select, the default
// of every create benchmarked) is stored without building what a provider
// would be told (its notify and return URLs), which it never is.
func deferred(o *schema.Order) (provider.Init, bool) {
	return provider.Deferred(provider.Payment{Method: o.Method, SystemID: o.FiatpspSystemID, PayCurrency: o.PayCurrency})
}

func applyInit(o *schema.Order, init provider.Init) {
	o.ProviderURL, o.QRPayload, o.NextAction, o.ProviderRef = init.ProviderURL, init.QRPayload, init.NextAction, init.Ref
	o.Status = schema.StatusReady
}

// initRemote asks o's channels cs in turn (routes.initialise), then moves
// the order to ready on the channel that answered, or to failed when the
// provider refuses or none answers, so the order says what happened and
// the merchant may retry with the same clientOrderId.
func (h *initiator) initRemote(ctx context.Context, o *schema.Order, cs []channel.Candidate) error {
	init, err := h.route.initialise(ctx, o, cs, h.payment, h.now())
	if err != nil {
		return h.initFailed(ctx, o, err)
	}
	applyInit(o, init)
	o.Version++
	_, err = h.store.Transition(ctx, o.ID, schema.StatusReady, h.now(),
		schema.FProviderURL, init.ProviderURL, schema.FQRPayload, init.QRPayload, schema.FNextAction, init.NextAction,
		schema.FProviderRef, init.Ref, schema.FChannel, o.Channel, schema.FCost, o.Cost)
	return err
}

// channels are the eligible channels of o, a provider method's order, for
// its merchant now; none is the merchant's method_unavailable.
func (h *initiator) channels(ctx context.Context, o *schema.Order) ([]channel.Candidate, error) {
	acct, err := h.groups.Lookup(ctx, o.AppID)
	if err != nil {
		return nil, fmt.Errorf("look up merchant of order %s: %w", o.ID, err)
	}
	return h.route.candidates(o, acct.Group, h.now())
}

// initFailed fails o after no channel initialised it: skipped by every
// channel (caps found full meanwhile) is the merchant's method_unavailable,
// anything else the provider's failure.
func (h *initiator) initFailed(ctx context.Context, o *schema.Order, err error) error {
	if !errors.Is(err, errNoChannel) {
		return h.providerFailed(ctx, o, err)
	}
	if _, ferr := h.store.Transition(context.WithoutCancel(ctx), o.ID, schema.StatusFailed, h.now()); ferr != nil {
		h.log.Error("fail order no channel took", "order", o.ID, "err", ferr)
	}
	o.Status = schema.StatusFailed
	return unavailable(o.Method)
}

// providerFailed fails o after its provider refused or did not answer, and
// is the error the caller sees.
func (h *initiator) providerFailed(ctx context.Context, o *schema.Order, err error) error {
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

// errChosen is a choice that another request made first.
var errChosen = errors.New("choice made already")

// fixChoice writes a payer's choice on o once, with its changed event: the
// fields, o's next action (empty while a provider is asked) and its charge,
// if the order still waits at next. Losing the race is a conflict.
func (h *initiator) fixChoice(ctx context.Context, o *schema.Order, next string, fields ...string) error {
	charged := ""
	if o.ChargeCurrency != "" {
		charged = fmt.Sprint(int64(o.ChargeAmount))
	}
	if o.NextAction == next {
		o.NextAction = ""
	}
	fields = append(fields, schema.FNextAction, o.NextAction,
		schema.FChargeAmt, charged, schema.FChargeCur, o.ChargeCurrency, schema.FFXRate, o.FXRate)
	applied, err := h.store.Update(ctx, o.ID, []schema.Status{schema.StatusPending, schema.StatusReady}, schema.FNextAction, next, h.now(), fields...)
	if err != nil {
		return err
	}
	if !applied {
		return &platform.Error{Kind: platform.KindConflict, Msg: "order " + o.ID + " was confirmed already", Err: errChosen}
	}
	return nil
}

// initChosen asks o's channels cs in turn after the choice was fixed
// (once: a replayed confirm never reaches here, so it cannot move the
// order to another channel), and records the answer with the channel;
// when the provider refuses or none answers, the order fails.
func (h *initiator) initChosen(ctx context.Context, o *schema.Order, cs []channel.Candidate) error {
	init, err := h.route.initialise(ctx, o, cs, h.payment, h.now())
	if err != nil {
		return h.initFailed(ctx, o, err)
	}
	applyInit(o, init)
	_, err = h.store.Update(ctx, o.ID, []schema.Status{schema.StatusReady}, schema.FProviderRef, "", h.now(),
		schema.FProviderURL, init.ProviderURL, schema.FQRPayload, init.QRPayload, schema.FProviderRef, init.Ref,
		schema.FChannel, o.Channel, schema.FCost, o.Cost)
	return err
}
