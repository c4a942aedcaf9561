package console

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
)

// errNotOurs is an order id that is not one of the person's merchant's
// orders: unknown and another merchant's alike are "not found", so an id
// tells nothing about other merchants.
var errNotOurs = platform.Errorf(platform.KindNotFound, "no such order")

// own reads order id when it belongs to the session's merchant.
func (c *Console) own(ctx *fiber.Ctx, id string) (*schema.Order, error) {
	return c.ownOf(ctx.UserContext(), frame.SessionOf(ctx).AppID, id)
}

// ownOf reads order id when it belongs to merchant appid.
func (c *Console) ownOf(ctx context.Context, appid, id string) (*schema.Order, error) {
	if _, ok := schema.ParseOrderID(id); !ok {
		return nil, errNotOurs
	}
	o, err := c.d.Reads.Live.Order(ctx, id)
	if errors.Is(err, query.ErrNotFound) && c.d.Reads.Archive != nil {
		o, err = c.d.Reads.Archive.Archived(ctx, appid, id)
	}
	if errors.Is(err, query.ErrNotFound) {
		return nil, errNotOurs
	}
	if err != nil {
		return nil, err
	}
	if o.AppID != appid {
		return nil, errNotOurs
	}
	return o, nil
}

// orderView is the detail page's data.
type orderView struct {
	O        *schema.Order
	View     schema.OrderView
	Timeline []event
	Delivery *schema.WebhookState
	Refunds  []schema.Refund
	// RefundLeft is what may still be refunded.
	RefundLeft string
	CanRefund  bool
	CanCancel  bool
	CanResend  bool
	CanSandbox bool
}

// event is one line of the timeline. A step the order does not time
// (method chosen, provider initialised) has no At.
type event struct {
	At     time.Time
	Kind   string // message id
	Detail string
	Tone   string // ok, bad or ""
}

// order is the order's detail page: every field, the timeline, and the
// forms of the actions the role allows on the order as it stands.
func (c *Console) order(ctx *fiber.Ctx) error {
	o, err := c.own(ctx, strings.Clone(ctx.Params("id")))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	v := c.ui.View(ctx, "order_title")
	ov, err := c.detail(ctx.UserContext(), o)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	ov.CanRefund = v.Can("orders.refund") && o.Status == schema.StatusPaid && o.RefundReserved < o.Amount
	ov.CanCancel = v.Can("orders.cancel") && o.Status.Live()
	ov.CanResend = v.Can("webhooks.resend") && ov.Delivery != nil
	ov.CanSandbox = v.Can("sandbox.drive") && o.Sandbox && o.Status.Live()
	v.Data = ov
	v.Flash = flash(ctx, v)
	return c.ui.Render(ctx, "order", v)
}

// detail gathers the order's refunds, notifications and webhook attempts.
func (c *Console) detail(ctx context.Context, o *schema.Order) (*orderView, error) {
	ov := &orderView{O: o, View: schema.View(o, ""), RefundLeft: (o.Amount - o.RefundReserved).String()}
	r := c.d.Reads
	var err error
	if r.Refunds != nil {
		if ov.Refunds, err = r.Refunds.Refunds(ctx, o.ID); err != nil {
			return nil, err
		}
	}
	var notes []schema.NotificationRecord
	if r.Notifications != nil {
		if notes, err = r.Notifications.Notifications(ctx, o.ID); err != nil {
			return nil, err
		}
	}
	var attempts []schema.WebhookAttempt
	if r.Webhooks != nil {
		// The paid webhook's delivery is named by the order's id, a
		// refund's by the refund's.
		if ov.Delivery, err = r.Webhooks.Delivery(ctx, o.ID, o.ID); err != nil {
			return nil, err
		}
		if attempts, err = r.Webhooks.Attempts(ctx, o.ID, o.ID); err != nil {
			return nil, err
		}
		for _, rf := range ov.Refunds {
			more, err := r.Webhooks.Attempts(ctx, o.ID, rf.ID)
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
func timeline(o *schema.Order, notes []schema.NotificationRecord, refunds []schema.Refund, attempts []schema.WebhookAttempt) []event {
	out := []event{{At: o.CreatedAt, Kind: "tl_created", Detail: o.Amount.String() + " " + o.Currency}}
	if o.Method != "" && o.Method != schema.Method("select") {
		out = append(out, event{At: o.CreatedAt, Kind: "tl_method", Detail: string(o.Method)})
	}
	if o.ProviderRef != "" || o.ProviderURL != "" || o.QRPayload != "" || o.Status != schema.StatusPending {
		out = append(out, event{At: o.CreatedAt, Kind: "tl_provider", Detail: o.ProviderRef})
	}
	for _, n := range notes {
		d := n.Provider + ": " + n.Verdict
		if n.Outcome != "" {
			d += " (" + n.Outcome + ")"
		}
		if n.Paid != "" {
			d += ", " + n.Paid
		}
		out = append(out, event{At: n.At, Kind: "tl_notification", Detail: d, Tone: verdictTone(n.Verdict)})
	}
	switch o.Status {
	case schema.StatusPaid:
		out = append(out, event{At: o.CompletedAt, Kind: "tl_paid", Tone: "ok"})
	case schema.StatusFailed:
		out = append(out, event{At: o.UpdatedAt, Kind: "tl_failed", Tone: "bad"})
	case schema.StatusCancelled:
		out = append(out, event{At: o.UpdatedAt, Kind: "tl_cancelled", Tone: "bad"})
	}
	for _, r := range refunds {
		d := r.Amount.String() + " " + r.Currency + " · " + string(r.Status)
		if r.Reason != "" {
			d += " · " + r.Reason
		}
		out = append(out, event{At: r.CreatedAt(), Kind: "tl_refund", Detail: d})
	}
	for _, a := range attempts {
		at, _ := time.Parse(time.RFC3339, a.At)
		out = append(out, event{At: at, Kind: "tl_webhook", Detail: attemptText(a), Tone: map[bool]string{true: "ok", false: "bad"}[a.Success]})
	}
	slices.SortStableFunc(out, func(a, b event) int { return a.At.Compare(b.At) })
	return out
}

func attemptText(a schema.WebhookAttempt) string {
	var b strings.Builder
	b.WriteString("#" + itoa(a.Attempt))
	if a.Manual {
		b.WriteString(" (resend)")
	}
	b.WriteString(" · HTTP " + itoa(a.Status))
	if a.Error != "" {
		b.WriteString(" · " + a.Error)
	}
	if body := strings.TrimSpace(a.Body); body != "" {
		if len(body) > 120 {
			body = body[:120] + "…"
		}
		b.WriteString(" · “" + body + "”")
	}
	return b.String()
}

func verdictTone(v string) string {
	switch v {
	case schema.VerdictApplied, schema.VerdictNoChange, schema.VerdictPending, schema.VerdictRefunded:
		return ""
	}
	return "bad"
}
