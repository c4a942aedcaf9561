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
	Timeline []Event
	Delivery *schema.WebhookState
	Refunds  []schema.Refund
	// RefundLeft is what may still be refunded.
	RefundLeft string
	CanRefund  bool
	CanCancel  bool
	CanResend  bool
	CanSandbox bool
}

// Event is one line of the timeline. A step the order does not time
// (method chosen, provider initialised) has no At.
type Event struct {
	At     time.Time
	Kind   string // message id
	Detail string
	Tone   string // ok, bad or ""
	// Attempt is a webhook attempt's record (Kind tl_webhook): the pages
	// say it with frame.Catalog.AttemptLine, in the viewer's language.
	Attempt *schema.WebhookAttempt
}

// Detail gathers the order's refunds, notifications and webhook attempts.
// No action is offered: every Can field is false until the caller sets it.
func (r *Reader) Detail(ctx context.Context, o *schema.Order) (*OrderDetail, error) {
	ov := &OrderDetail{O: o, View: schema.View(o, ""), RefundLeft: (o.Amount - o.RefundReserved).String()}
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
	var attempts []schema.WebhookAttempt
	if rd.Webhooks != nil {
		// The paid webhook's delivery is named by the order's id, a
		// refund's by the refund's.
		if ov.Delivery, err = rd.Webhooks.Delivery(ctx, o.ID, o.ID); err != nil {
			return nil, err
		}
		if attempts, err = rd.Webhooks.Attempts(ctx, o.ID, o.ID); err != nil {
			return nil, err
		}
		for _, rf := range ov.Refunds {
			more, err := rd.Webhooks.Attempts(ctx, o.ID, rf.ID)
			if err != nil {
				return nil, err
			}
			attempts = append(attempts, more...)
		}
	}
	ov.Timeline = timeline(o, notes, ov.Refunds, attempts)
	return ov, nil
}

// timeline orders what happened to the order by time; the untimed steps
// follow its creation.
func timeline(o *schema.Order, notes []schema.NotificationRecord, refunds []schema.Refund, attempts []schema.WebhookAttempt) []Event {
	out := []Event{{At: o.CreatedAt, Kind: "tl_created", Detail: o.Amount.String() + " " + o.Currency}}
	if o.Method != "" && o.Method != schema.Method("select") {
		out = append(out, Event{At: o.CreatedAt, Kind: "tl_method", Detail: string(o.Method)})
	}
	if o.ProviderRef != "" || o.ProviderURL != "" || o.QRPayload != "" || o.Status != schema.StatusPending {
		out = append(out, Event{At: o.CreatedAt, Kind: "tl_provider", Detail: o.ProviderRef})
	}
	for _, n := range notes {
		if n.Mode == schema.ModeInit {
			// A channel that did not take the payment: which one and why,
			// for the operator (Merchant takes the channel out).
			out = append(out, Event{At: n.At, Kind: "tl_init_failed", Detail: n.Channel + ": " + n.Detail, Tone: "bad"})
			continue
		}
		d := n.Provider + ": " + n.Verdict
		if n.Outcome != "" {
			d += " (" + n.Outcome + ")"
		}
		if n.Paid != "" {
			d += ", " + n.Paid
		}
		out = append(out, Event{At: n.At, Kind: "tl_notification", Detail: d, Tone: verdictTone(n.Verdict)})
	}
	switch o.Status {
	case schema.StatusPaid:
		out = append(out, Event{At: o.CompletedAt, Kind: "tl_paid", Tone: "ok"})
	case schema.StatusFailed:
		out = append(out, Event{At: o.UpdatedAt, Kind: "tl_failed", Tone: "bad"})
	case schema.StatusCancelled:
		out = append(out, Event{At: o.UpdatedAt, Kind: "tl_cancelled", Tone: "bad"})
	}
	for _, r := range refunds {
		d := r.Amount.String() + " " + r.Currency + " · " + string(r.Status)
		if r.Reason != "" {
			d += " · " + r.Reason
		}
		out = append(out, Event{At: r.CreatedAt(), Kind: "tl_refund", Detail: d})
	}
	for _, a := range attempts {
		at, _ := time.Parse(time.RFC3339, a.At)
		out = append(out, Event{At: at, Kind: "tl_webhook", Attempt: &a, Tone: map[bool]string{true: "ok", false: "bad"}[a.Success]})
	}
	slices.SortStableFunc(out, func(a, b Event) int { return a.At.Compare(b.At) })
	return out
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
