package orderview

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// ErrNotOurs is an order id that is not one of the person's merchant's
// orders: unknown and another merchant's alike are "not found", so an id
// tells nothing about other merchants.
var ErrNotOurs = platform.Errorf(platform.KindNotFound, "no such order")

// Own reads order id when it belongs to merchant appid.
func (r *Reader) Own(ctx context.Context, appid, id string) (*schema.Order, error) {
	if _, ok := schema.ParseOrderID(id); !ok {
		return nil, ErrNotOurs
	}
	o, err := r.reads.Live.Order(ctx, id)
	if errors.Is(err, query.ErrNotFound) && r.reads.Archive != nil {
		o, err = r.reads.Archive.Archived(ctx, appid, id)
	}
	if errors.Is(err, query.ErrNotFound) {
		return nil, ErrNotOurs
	}
	if err != nil {
		return nil, err
	}
	if o.AppID != appid {
		return nil, ErrNotOurs
	}
	return o, nil
}

// OrderDetail is the detail page's data.
type OrderDetail struct {
	O        *schema.Order
	View     schema.OrderView
	Badge    string // the status or refund state its badge reads (Badge)
	Timeline []Event
	Delivery *schema.WebhookState
	Refunds  []schema.Refund
	// RefundLeft is what may still be refunded.
	RefundLeft string
	CanRefund  bool
	CanCancel  bool
	CanResend  bool
	CanSandbox bool
	// WebhooksURL is the Webhooks page filtered to this order, where each
	// webhook attempt on the timeline links; "" when the viewer has no
	// such page.
	WebhooksURL string
}

// Event is one line of the timeline. A step the order does not time
// (method chosen, provider initialised) has no At.
type Event struct {
	At     time.Time
	Kind   string // message id
	Detail string
	Tone   string // ok, bad or ""
	// Attempt is a webhook attempt's record (Kind tl_webhook_<event>): the
	// pages say it with frame.Catalog.AttemptLine, in the viewer's language.
	Attempt *schema.WebhookAttempt
	// Hook is the event a webhook attempt carried ("paid", "refund"); ""
	// for the other lines.
	Hook string
}

// hookLog is one delivery's attempts and the event it carries: the paid
// webhook's delivery is named by the order's id, a refund's by the
// refund's.
type hookLog struct {
	event    string // "paid" or "refund"
	id       string // the delivery's id
	attempts []schema.WebhookAttempt
}

// Detail gathers the order's refunds, notifications and webhook attempts.
// No action is offered: every Can field is false until the caller sets it.
func (r *Reader) Detail(ctx context.Context, o *schema.Order) (*OrderDetail, error) {
	ov := &OrderDetail{O: o, View: schema.View(o, ""), Badge: Badge(o), RefundLeft: (o.Amount - o.RefundReserved).String()}
	rd := r.reads
	var err error
	if rd.Refunds != nil {
		if ov.Refunds, err = rd.Refunds.Refunds(ctx, o.ID); err != nil {
			return nil, err
		}
	}
	var notes []schema.NotificationRecord
	if rd.Notifications != nil {
		if notes, err = rd.Notifications.Notifications(ctx, o.ID); err != nil {
			return nil, err
		}
	}
	var hooks []hookLog
	if rd.Webhooks != nil {
		if ov.Delivery, err = rd.Webhooks.Delivery(ctx, o.ID, o.ID); err != nil {
			return nil, err
		}
		if hooks, err = r.hookLogs(ctx, o, ov.Refunds); err != nil {
			return nil, err
		}
	}
	ov.Timeline = timeline(o, notes, ov.Refunds, hooks)
	return ov, nil
}

// hookLogs reads the attempts of the order's paid webhook and of each
// refund's.
func (r *Reader) hookLogs(ctx context.Context, o *schema.Order, refunds []schema.Refund) ([]hookLog, error) {
	logs := []hookLog{{event: "paid", id: o.ID}}
	for _, rf := range refunds {
		logs = append(logs, hookLog{event: "refund", id: rf.ID})
	}
	for i := range logs {
		var err error
		if logs[i].attempts, err = r.reads.Webhooks.Attempts(ctx, o.ID, logs[i].id); err != nil {
			return nil, err
		}
	}
	return logs, nil
}

// step is a timeline line with its place: when it happened as far as
// cause and effect go (never before what caused it), its rank among the
// lines of the same moment, and its number among lines of one rank.
type step struct {
	Event
	key  time.Time
	rank int
	seq  int
}

// Ranks of the timeline's kinds among lines of the same moment: the order
// in which one causes the next.
const (
	rankCreated = iota
	rankMethod
	rankInitFailed
	rankProvider
	rankNotification
	rankOutcome
	rankRefund
	rankWebhook
)

// timeline is what happened to the order in causal order: created, method,
// provider initialised, notifications, the outcome, refunds, and each
// webhook attempt after the event it carries. Clocks do not give that
// order by themselves: an attempt's time is kept to the second, so a paid
// webhook's first attempt would read as older than the payment (and the
// creation) of the same second. Each line is therefore placed no earlier
// than its cause, and lines of one moment by their causal rank.
func timeline(o *schema.Order, notes []schema.NotificationRecord, refunds []schema.Refund, hooks []hookLog) []Event {
	created := o.CreatedAt
	out := []step{{Event: Event{At: o.CreatedAt, Kind: "tl_created", Detail: o.Amount.String() + " " + o.Currency}, key: created, rank: rankCreated}}
	if o.Method != "" && o.Method != schema.Method("select") {
		out = append(out, step{Event: Event{At: o.CreatedAt, Kind: "tl_method", Detail: string(o.Method)}, key: created, rank: rankMethod})
	}
	// The provider was initialised after the channels that failed to.
	initialised, outcome := created, created
	for i, n := range notes {
		ev := notificationEvent(n)
		key, rank := later(n.At, created), rankNotification
		switch {
		case n.Mode == schema.ModeInit:
			rank = rankInitFailed
			initialised = later(initialised, key)
		case n.Verdict == schema.VerdictApplied:
			outcome = later(outcome, key)
		}
		// Notifications come newest first: of one moment, the older first.
		out = append(out, step{Event: ev, key: key, rank: rank, seq: -i})
	}
	if o.ProviderRef != "" || o.ProviderURL != "" || o.QRPayload != "" || o.Status != schema.StatusPending {
		out = append(out, step{Event: Event{At: o.CreatedAt, Kind: "tl_provider", Detail: o.ProviderRef}, key: initialised, rank: rankProvider})
	}
	outcome = later(outcome, initialised)
	if ev, ok := outcomeEvent(o); ok {
		outcome = later(ev.At, outcome)
		out = append(out, step{Event: ev, key: outcome, rank: rankOutcome})
	}
	causes := map[string]time.Time{o.ID: outcome}
	for i, r := range refunds {
		d := r.Amount.String() + " " + r.Currency + " · " + string(r.Status)
		if r.Reason != "" {
			d += " · " + r.Reason
		}
		key := later(r.CreatedAt(), outcome)
		causes[r.ID] = key
		out = append(out, step{Event: Event{At: r.CreatedAt(), Kind: "tl_refund", Detail: d}, key: key, rank: rankRefund, seq: i})
	}
	for _, h := range hooks {
		for _, a := range h.attempts {
			at, _ := time.Parse(time.RFC3339, a.At)
			ev := Event{At: at, Kind: "tl_webhook_" + h.event, Attempt: &a, Tone: map[bool]string{true: "ok", false: "bad"}[a.Success], Hook: h.event}
			out = append(out, step{Event: ev, key: later(at, causes[h.id]), rank: rankWebhook, seq: a.Attempt})
		}
	}
	slices.SortStableFunc(out, func(a, b step) int {
		if c := a.key.Compare(b.key); c != 0 {
			return c
		}
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.seq - b.seq
	})
	events := make([]Event, len(out))
	for i := range out {
		events[i] = out[i].Event
	}
	return events
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// notificationEvent is a provider notification's line: a channel that did
// not take the payment says which one and why, for the operator
// (Merchant takes the channel out).
func notificationEvent(n schema.NotificationRecord) Event {
	if n.Mode == schema.ModeInit {
		return Event{At: n.At, Kind: "tl_init_failed", Detail: n.Channel + ": " + n.Detail, Tone: "bad"}
	}
	d := n.Provider + ": " + n.Verdict
	if n.Outcome != "" {
		d += " (" + n.Outcome + ")"
	}
	if n.Paid != "" {
		d += ", " + n.Paid
	}
	return Event{At: n.At, Kind: "tl_notification", Detail: d, Tone: verdictTone(n.Verdict)}
}

// outcomeEvent is the line of how the order ended, if it has.
func outcomeEvent(o *schema.Order) (Event, bool) {
	switch o.Status {
	case schema.StatusPaid:
		return Event{At: o.CompletedAt, Kind: "tl_paid", Tone: "ok"}, true
	case schema.StatusFailed:
		return Event{At: o.UpdatedAt, Kind: "tl_failed", Tone: "bad"}, true
	case schema.StatusCancelled:
		return Event{At: o.UpdatedAt, Kind: "tl_cancelled", Tone: "bad"}, true
	}
	return Event{}, false
}

// Merchant is tl as a merchant's console shows it: a channel the payment
// did not go through is the operator's business, so its attempts keep
// their neutral sentence and lose the channel and the reason.
func Merchant(tl []Event) []Event {
	for i := range tl {
		if tl[i].Kind == "tl_init_failed" {
			tl[i].Detail = ""
		}
	}
	return tl
}

func verdictTone(v string) string {
	switch v {
	case schema.VerdictApplied, schema.VerdictNoChange, schema.VerdictPending, schema.VerdictRefunded:
		return ""
	}
	return "bad"
}
