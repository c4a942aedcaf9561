package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Notifications serves what providers tell us about payments:
// /api/gatewaynotification/<family>/... for live merchants and
// /sandbox/gatewaynotification/<family>/... for the simulators. The two
// prefixes keep modes apart without trying one secret after another: a
// notification verified with sandbox secrets can never touch a live order.
// Each one is verified by its family's adapter, checked against the order
// (amount and currency against what was charged), applied through Settle,
// kept with its verdict, and answered as the provider expects.
type Notifications struct {
	providers *provider.Registry
	settle    *Settle
	recorder  *notificationLog
	base      string // PublicURL: where a browser return goes on
	m         *notifyMetrics
	log       *slog.Logger
}

// newNotifications wires the provider notification endpoints.
func newNotifications(cfg Config, d Deps, settle *Settle) (*Notifications, error) {
	m, err := newNotifyMetrics(d.Registerer)
	if err != nil {
		return nil, err
	}
	return &Notifications{providers: d.Providers, settle: settle, base: cfg.PublicURL, m: m, log: d.Log,
		recorder: &notificationLog{rdb: d.Store.rdb, keep: cfg.OrderTTL + cfg.OrderRetention}}, nil
}

// Handle verifies a notification to family's endpoint of the mode, with
// channel chID's adapter when the path names one (chID "" is the plain
// path: the family's channels are tried in order, verifyAny), applies it
// through Settle, keeps it with its verdict and gives the answer the
// provider expects. An error is only returned when the notification could
// not be kept: unrecorded is unanswered, and the provider sends it again.
// A refusal is an answer.
func (h *Notifications) Handle(ctx context.Context, family schema.Method, sandbox bool, chID string, req *provider.Request) (provider.Reply, error) {
	chs, err := h.channels(family, sandbox, chID)
	if err != nil {
		return provider.Reply{}, err
	}
	rec := schema.NotificationRecord{At: h.settle.now().UTC(), Provider: string(family), Mode: mode(sandbox)}
	by, n, err := h.verifyAny(ctx, chs, req)
	if err == nil {
		rec.Channel = by.ID
	}
	err = h.settleWith(ctx, family, sandbox, by.ID, n, err, &rec)
	if rerr := h.recorder.add(ctx, &rec); rerr != nil {
		return provider.Reply{}, fmt.Errorf("record notification: %w", rerr)
	}
	if err != nil {
		h.log.Warn("provider notification refused", "provider", family, "channel", rec.Channel, "mode", rec.Mode, "order", rec.OrderID, "verdict", rec.Verdict)
	}
	r := by.Adapter.Reply(n, err)
	if r.Status >= 300 && r.Status < 400 && r.Location == "" {
		// A browser return (bdpsp_b): the payer goes on to the order's page,
		// which shows what the search found.
		r.Location = h.base + "/payment/" + url.PathEscape(n.OrderID)
		if n.OrderID == "" {
			r.Location = h.base + "/"
		}
	}
	return r, nil
}

// Reconcile asks the order's provider what became of its payment and
// applies the answer as a notification would, kept with its verdict: for
// what a provider never notifies (a failed fiatpsp payment), or when a
// notification was lost.
func (h *Notifications) Reconcile(ctx context.Context, o *schema.Order) error {
	a, err := channelAdapter(h.providers, o)
	if err != nil {
		return err
	}
	id := channel.OfOrder(o).ID
	rec := schema.NotificationRecord{At: h.settle.now().UTC(), Provider: string(o.Method), Channel: id, Mode: mode(o.Sandbox) + " query"}
	n, err := a.Query(ctx, o.ID, o.ProviderRef)
	if err == nil && n.OrderID == "" {
		n.OrderID = o.ID
	}
	err = h.settleWith(ctx, o.Method, o.Sandbox, id, n, err, &rec)
	if rerr := h.recorder.add(ctx, &rec); rerr != nil {
		return fmt.Errorf("record query: %w", rerr)
	}
	return err
}

// settleWith applies a provider answer verified by channel chID (verr
// nil) and fills rec with what happened; the error is the refusal, if any.
func (h *Notifications) settleWith(ctx context.Context, family schema.Method, sandbox bool, chID string, n provider.Notification, verr error, rec *schema.NotificationRecord) error {
	err := verr
	if err == nil {
		err = h.apply(ctx, family, sandbox, chID, n, rec)
	} else {
		rec.Verdict, rec.Detail = verdictOf(err), err.Error()
	}
	rec.OrderID, rec.Ref, rec.Outcome, rec.Fields = n.OrderID, n.Ref, n.Outcome.String(), n.Fields
	if !n.Paid.IsZero() {
		rec.Paid = n.Paid.Amount.String() + " " + n.Paid.Currency
	}
	h.m.received.WithLabelValues(string(family), rec.Verdict).Inc()
	return err
}

// apply checks a notification verified by channel chID against its order
// and settles it. A returned error is a refusal the provider is told
// about; the verdict says why either way.
func (h *Notifications) apply(ctx context.Context, family schema.Method, sandbox bool, chID string, n provider.Notification, rec *schema.NotificationRecord) error {
	o, err := h.settle.store.Get(ctx, n.OrderID)
	if platform.KindOf(err) == platform.KindNotFound || (err == nil && (o.Sandbox != sandbox || o.Method != family)) {
		rec.Verdict, rec.Detail = schema.VerdictUnknownOrder, "no "+mode(sandbox)+" "+string(family)+" order "+n.OrderID
		return fmt.Errorf("%s: %w", rec.Detail, provider.ErrNotFound)
	}
	if err != nil {
		rec.Verdict = schema.VerdictError
		return err
	}
	if want := channel.OfOrder(o).ID; want != chID {
		// Verified, but with another provider account's secret than the
		// one the order went to: it never settles the order.
		rec.Verdict = schema.VerdictChannelMismatch
		rec.Detail = fmt.Sprintf("verified by channel %q; the order is on channel %q", chID, want)
		return fmt.Errorf("%s: %w", rec.Detail, provider.ErrSignature)
	}
	if n.InitRef != "" && n.InitRef != o.ProviderRef {
		// A real payment, but of another charge than the one we made for
		// this order: it pays nothing here (the provider need not resend).
		rec.Verdict = schema.VerdictRefMismatch
		rec.Detail = fmt.Sprintf("provider reference %q is not the %q recorded on the order", n.InitRef, o.ProviderRef)
		h.m.mismatch.WithLabelValues(string(family), rec.Verdict).Inc()
		return nil
	}
	to, verdict := target(o, n)
	rec.Verdict = verdict
	if verdict == schema.VerdictAmountMismatch || verdict == schema.VerdictCurrencyMismatch || verdict == schema.VerdictPartial {
		amt, cur := o.Charge()
		rec.Detail = fmt.Sprintf("charged %s %s, provider reports %s %s", amt, cur, n.Paid.Amount, n.Paid.Currency)
		h.m.mismatch.WithLabelValues(string(family), verdict).Inc()
		return nil
	}
	if to == 0 {
		return nil
	}
	out, err := h.settle.Move(ctx, o.ID, to)
	var perr *platform.Error
	if errors.As(err, &perr) && perr.Kind == platform.KindConflict {
		rec.Verdict, rec.Detail = schema.VerdictIgnored, perr.Msg
		return nil
	}
	if err != nil {
		rec.Verdict = schema.VerdictError
		return err
	}
	rec.Moved = out.Moved
	if out.Moved {
		rec.Verdict = schema.VerdictApplied
	} else {
		rec.Verdict = schema.VerdictNoChange
	}
	return nil
}

// target is the status a notification asks for (0: none) and its verdict.
// Only a payment in full, in the charged currency, pays (PROVIDERS.md).
func target(o *schema.Order, n provider.Notification) (schema.Status, string) {
	switch n.Outcome {
	case provider.OutcomePaid:
		amt, cur := o.Charge()
		switch {
		case n.Paid.Currency != cur:
			return 0, schema.VerdictCurrencyMismatch
		case n.Paid.Amount < amt:
			return 0, schema.VerdictPartial
		case n.Paid.Amount != amt:
			return 0, schema.VerdictAmountMismatch
		}
		return schema.StatusPaid, schema.VerdictApplied
	case provider.OutcomePartial:
		return 0, schema.VerdictPartial
	case provider.OutcomeFailed:
		return schema.StatusFailed, schema.VerdictApplied
	case provider.OutcomeCancelled, provider.OutcomeExpired:
		return schema.StatusCancelled, schema.VerdictApplied
	case provider.OutcomeRefunded:
		return 0, schema.VerdictRefunded
	}
	return 0, schema.VerdictPending
}

func verdictOf(err error) string {
	switch {
	case errors.Is(err, provider.ErrSignature):
		return schema.VerdictBadSignature
	case errors.Is(err, provider.ErrMalformed):
		return schema.VerdictMalformed
	case errors.Is(err, provider.ErrUnverified):
		return schema.VerdictUnverified
	case errors.Is(err, provider.ErrNotFound):
		return schema.VerdictUnknownOrder
	case errors.Is(err, provider.ErrUnavailable):
		return schema.VerdictUnavailable
	}
	return schema.VerdictError
}

// notifyMetrics count notifications by verdict, and the payments that did
// not match their order, which an alert rule watches.
type notifyMetrics struct {
	received *prometheus.CounterVec
	mismatch *prometheus.CounterVec
}

func newNotifyMetrics(reg prometheus.Registerer) (*notifyMetrics, error) {
	m := &notifyMetrics{
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_provider_notifications_total", Help: "Provider notifications received, by provider and verdict.",
		}, []string{"provider", "verdict"}),
		mismatch: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_provider_payment_mismatch_total", Help: "Verified payments that did not pay their order: partial, wrong amount or wrong currency.",
		}, []string{"provider", "reason"}),
	}
	for _, c := range []prometheus.Collector{m.received, m.mismatch} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register notification metrics: %w", err)
		}
	}
	return m, nil
}

// Known refuses a family the mode has no provider for, or a channel path
// (chID not "") the family has no such channel for, as a route that does
// not exist: the notifications door asks before it reads the body.
func (h *Notifications) Known(family schema.Method, sandbox bool, chID string) error {
	_, err := h.channels(family, sandbox, chID)
	return err
}
