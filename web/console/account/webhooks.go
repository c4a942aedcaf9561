package account

import (
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/web/frame"
)

// webhooksData is the Webhooks page.
type webhooksData struct {
	State    string
	Query    string // a payment id or clientOrderId searched
	States   []string
	Rows     []dispatcher.DeliveryRow
	Rate     dispatcher.Rate
	Chart    frame.Chart
	Next     string // the cursor of the next page, "" on the last
	From, To string // the bulk resend form's defaults
	// Callback is the default callback URL a test event goes to, read
	// only for a role that may send one: "" disables the button.
	Callback string
	// Endpoints are the merchant's webhook endpoints for typed events.
	Endpoints endpointsPanel
}

// dateInput is the datetime-local form of t, in UTC.
const dateInput = "2006-01-02T15:04"

// webhooks lists every delivery (or those of a state, or of one order
// searched by q) and the last day's success rate.
func (h handlers) webhooks(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_webhooks_title")
	v.Flash = notice(v, c)
	f := dispatcher.ListFilter{State: query(c, "state"), Query: query(c, "q"), Limit: 50}
	if ms, err := parseMS(query(c, "before")); err == nil {
		f.Before = ms
	}
	return h.webhooksPage(c, v, f)
}

// webhooksPage renders the Webhooks page of filter f under view v.
func (h handlers) webhooksPage(c *fiber.Ctx, v *frame.View, f dispatcher.ListFilter) error {
	return h.webhooksPageOf(c, v, f, func(*endpointsPanel) {})
}

// defaultFilter is the Webhooks page's list when nothing is asked.
func defaultFilter() dispatcher.ListFilter { return dispatcher.ListFilter{Limit: 50} }

// webhooksPageOf is webhooksPage whose endpoints panel edit changes (an
// endpoint just added, a refused add form).
func (h handlers) webhooksPageOf(c *fiber.Ctx, v *frame.View, f dispatcher.ListFilter, edit func(*endpointsPanel)) error {
	w := h.ui.Actor(c)
	rows, err := h.p.svc.Webhooks.Deliveries(c.UserContext(), w, f)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	rate, err := h.p.svc.Webhooks.SuccessRate(c.UserContext(), w)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	d := webhooksData{State: f.State, Query: f.Query, Rows: rows, Rate: rate, Chart: rateChart(v, rate),
		States: []string{"", dispatcher.ViewDelivered, dispatcher.ViewPending, dispatcher.ViewFailing, dispatcher.ViewDead}}
	if len(rows) == f.Limit && f.Query == "" {
		d.Next = fmt.Sprint(rows[len(rows)-1].At.UnixMilli())
	}
	if v.Can(string(access.PermSettingsWrite)) {
		creds, err := h.p.svc.Keys.Credentials(c.UserContext(), w)
		if err != nil {
			return h.ui.Fail(c, err)
		}
		d.Callback = creds.Callback
	}
	if d.Endpoints, err = (endpointDesk{h}).panel(c); err != nil {
		return h.ui.Fail(c, err)
	}
	edit(&d.Endpoints)
	now := h.p.now().UTC()
	d.From, d.To = now.Add(-24*time.Hour).Format(dateInput), now.Add(time.Minute).Format(dateInput)
	v.Data = d
	return h.ui.Render(c, "desk_webhooks", v)
}

// rateChart draws the attempts of each hour.
func rateChart(v *frame.View, r dispatcher.Rate) frame.Chart {
	pts := make([]frame.Point, len(r.Hours))
	for i, hr := range r.Hours {
		pts[i] = frame.Point{Label: hr.Hour.Format("15:00"), Value: float64(hr.Attempts),
			Text: v.L.T("desk_rate_hour", "Ok", hr.Succeeded, "All", hr.Attempts)}
	}
	return frame.BarChart(v.L.T("desk_rate_chart"), pts)
}

func parseMS(s string) (time.Time, error) {
	var ms int64
	if _, err := fmt.Sscan(s, &ms); err != nil || ms <= 0 {
		return time.Time{}, fmt.Errorf("not a time: %q", s)
	}
	return time.UnixMilli(ms), nil
}

// resend queues one more attempt of one delivery.
func (h handlers) resend(c *fiber.Ctx) error {
	if err := h.p.svc.Webhooks.Resend(c.UserContext(), h.ui.Actor(c), form(c, "paymentId"), form(c, "refundId")); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/webhooks", "resent")
}

// resendDead queues every dead delivery of a time range.
func (h handlers) resendDead(c *fiber.Ctx) error {
	from, err1 := time.Parse(dateInput, form(c, "from"))
	to, err2 := time.Parse(dateInput, form(c, "to"))
	if err1 != nil || err2 != nil {
		return h.ui.Fail(c, fiber.NewError(fiber.StatusBadRequest, "dates"))
	}
	res, err := h.p.svc.Webhooks.ResendDead(c.UserContext(), h.ui.Actor(c), from, to)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	v := h.ui.View(c, "desk_webhooks_title")
	v.Flash = v.L.T("desk_resent_dead", "Count", res.Queued, "Skipped", res.Skipped)
	if res.More {
		v.Flash += " " + v.L.T("desk_resent_more", "Max", dispatcher.MaxBulkResend)
	}
	v.Path = h.ui.Config().Base + "/webhooks"
	return h.webhooksPage(c, v, dispatcher.ListFilter{Limit: 50})
}
