package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// ChannelHealth is the channels' circuit breaker as routing uses it: told
// every initialisation's outcome, and asked before a channel whose breaker
// is not closed is tried (channel.Health).
type ChannelHealth interface {
	Report(ctx context.Context, ref channel.Ref, o channel.Outcome)
	Probe(ctx context.Context, c channel.Candidate) bool
}

// allowAll is the health of a process without a breaker: every channel is
// tried, nothing is remembered.
type allowAll struct{}

func (allowAll) Report(context.Context, channel.Ref, channel.Outcome) {}
func (allowAll) Probe(context.Context, channel.Candidate) bool        { return true }

// DefaultChannelBudget is how long one initialisation may spend trying a
// method's channels in turn.
const DefaultChannelBudget = 5 * time.Second

// routes is where a provider method's payment goes: the eligible channels
// in their order, each tried within the budget until one initialises.
type routes struct {
	providers *provider.Registry
	router    *channel.Router
	caps      *channel.Caps
	health    ChannelHealth
	notes     *notificationLog
	budget    time.Duration
	log       *slog.Logger
}

// routed reports whether m's payments go through a provider's channel:
// select, usdt_direct and balance are ours.
func routed(m schema.Method) bool {
	return m != schema.MethodSelect && m != schema.MethodUSDTDirect && m != schema.MethodBalance
}

// query is what routing knows of o at now.
func query(o *schema.Order, group string, now time.Time) channel.Query {
	amt, _ := o.Charge()
	return channel.Query{Sandbox: o.Sandbox, Method: o.Method, AppID: o.AppID, Group: group, Amount: amt, At: now}
}

// unavailable is the merchant's answer when no channel may take a payment:
// why in merchant terms, never which account.
func unavailable(m schema.Method) error {
	return platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available for this payment now "+
		"(amount, time of day or the method's daily capacity); try another method", m)
}

// candidates are o's eligible channels, or the merchant's error when
// there are none.
func (r *routes) candidates(o *schema.Order, group string, now time.Time) ([]channel.Candidate, error) {
	cs := r.router.Candidates(query(o, group, now))
	if len(cs) == 0 {
		return nil, unavailable(o.Method)
	}
	return cs, nil
}

// attempt is one channel's try: its result, and the outcome the breaker
// is told.
type attempt struct {
	init    provider.Init
	err     error
	outcome channel.Outcome
}

// errNoChannel is a payment every candidate of which was skipped (breaker
// probe taken, cap full): none was asked.
var errNoChannel = errors.New("no channel took the payment")

// initialise tries cs in order within the budget until one initialises o,
// leaving o.Channel and o.Cost set to it. A failure of the account (no
// answer, a 5xx, a refusal naming an operator keyword) tries the next; a
// plain refusal is the provider's word on this payment and ends the loop.
func (r *routes) initialise(ctx context.Context, o *schema.Order, cs []channel.Candidate, payment func(*schema.Order) provider.Payment, now time.Time) (provider.Init, error) {
	deadline := time.Now().Add(r.budget)
	last := errNoChannel
	for i, c := range cs {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		a, ok := r.providers.ForChannel(c.Ref.Method, c.Ref.Sandbox, c.Ref.ID)
		if !ok || !r.health.Probe(ctx, c) {
			continue
		}
		amt, _ := o.Charge()
		res, err := r.caps.Reserve(ctx, c, o.ID, amt, now)
		if err != nil {
			return provider.Init{}, err
		}
		if res == channel.FullCount || res == channel.FullAmount {
			r.router.MarkFull(c.Ref, c.Settings.Day(now), now)
			continue
		}
		o.Channel, o.Cost = c.Ref.ID, c.Settings.Cost.String()
		at := r.try(ctx, a, payment(o), left/time.Duration(len(cs)-i))
		r.health.Report(context.WithoutCancel(ctx), c.Ref, at.outcome)
		if at.err == nil {
			return at.init, nil
		}
		r.failed(ctx, o, c.Ref, at.outcome)
		last = at.err
		if !at.outcome.FailsOver() {
			break
		}
	}
	return provider.Init{}, last
}

// try asks one channel, within its share of the budget (the adapter's own
// time-out applies inside it), and classifies the answer.
func (r *routes) try(ctx context.Context, a provider.Adapter, p provider.Payment, within time.Duration) attempt {
	actx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	init, err := a.Initialise(actx, p)
	if err == nil {
		return attempt{init: init, outcome: channel.Outcome{OK: true}}
	}
	if actx.Err() != nil && ctx.Err() == nil && !errors.Is(err, provider.ErrRefused) {
		// The attempt's share ran out, whatever the adapter made of it.
		err = errors.Join(provider.ErrTimeout, err)
	}
	return attempt{err: err, outcome: classify(err, r.router.Directory().Now().Keywords)}
}

// classify names an initialisation failure for the breaker and the
// timeline, by the causes the provider package marks, never by text but
// for the operator's keywords in a refusal.
func classify(err error, keywords []string) channel.Outcome {
	o := channel.Outcome{Detail: err.Error()}
	switch {
	case errors.Is(err, provider.ErrRefused):
		o.Reason = channel.ReasonRefused
		if kw := channel.MatchKeyword(keywords, err.Error()); kw != "" {
			o.Reason, o.Keyword = channel.ReasonKeyword, kw
		}
	case errors.Is(err, provider.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		o.Reason = channel.ReasonTimeout
	case errors.Is(err, provider.ErrHTTP5xx):
		o.Reason = channel.ReasonHTTP5xx
	default:
		o.Reason = channel.ReasonTransport
	}
	return o
}

// failed gives back the attempt's reservation and puts it on the order's
// timeline.
func (r *routes) failed(ctx context.Context, o *schema.Order, ref channel.Ref, out channel.Outcome) {
	ctx = context.WithoutCancel(ctx)
	r.release(ctx, o.ID, ref)
	rec := &schema.NotificationRecord{At: time.Now().UTC(), Provider: string(o.Method), Channel: ref.ID, Mode: schema.ModeInit,
		OrderID: o.ID, Verdict: schema.VerdictInitFailed, Detail: out.Reason}
	if err := r.notes.add(ctx, rec); err != nil {
		r.log.Warn("record init attempt", "order", o.ID, "channel", ref.String(), "err", err)
	}
}

func (r *routes) release(ctx context.Context, orderID string, ref channel.Ref) {
	if _, err := r.caps.Release(ctx, ref, orderID); err != nil {
		// The ledger's poster releases it again when the order ends.
		r.log.Warn("release channel cap", "order", orderID, "channel", ref.String(), "err", err)
	}
}

// routeError is the caller's error of an initialisation no channel took.
func routeError(o *schema.Order, err error) error {
	if errors.Is(err, errNoChannel) {
		return unavailable(o.Method)
	}
	return fmt.Errorf("initialise order %s: %w", o.ID, err)
}
