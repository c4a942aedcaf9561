package console

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
)

// orderFilter is the orders page's form, as typed and as understood.
type orderFilter struct {
	Q, Status, Method, Currency, From, To string
	f                                     query.Filter
}

// ordersView is the orders page's data.
type ordersView struct {
	F        orderFilter
	Rows     []orderRow
	Pager    frame.Pager
	Statuses []string
	Methods  []string
	Currency []string
	Export   string // the export link of this filter; "" when it cannot export
	Live     bool
	NotFound string // a paymentId searched for that is not the merchant's
}

// orderRow is one order as the table shows it.
type orderRow struct {
	ID, ClientOrderID, Amount, Currency, Method, Status, Created string
	Sandbox                                                      bool
}

func rowOf(o *schema.Order) orderRow {
	return orderRow{ID: o.ID, ClientOrderID: o.ClientOrderID, Amount: o.Amount.String(), Currency: o.Currency,
		Method: string(o.Method), Status: o.Status.String(), Created: o.CreatedAt.UTC().Format("2006-01-02 15:04:05"), Sandbox: o.Sandbox}
}

// parseFilter reads the form; a value it does not know is the person's
// mistake, shown on the page (400), not ignored.
func parseFilter(c *fiber.Ctx, appid string) (orderFilter, error) {
	of := orderFilter{Q: strings.TrimSpace(c.Query("q")), Status: c.Query("status"), Method: c.Query("method"),
		Currency: c.Query("currency"), From: c.Query("from"), To: c.Query("to")}
	of = orderFilter{Q: strings.Clone(of.Q), Status: strings.Clone(of.Status), Method: strings.Clone(of.Method),
		Currency: strings.Clone(of.Currency), From: strings.Clone(of.From), To: strings.Clone(of.To)}
	f := query.Filter{AppID: appid, Page: max(1, c.QueryInt("page", 1)), Currency: of.Currency}
	if f.Page > 1_000_000 {
		return of, platform.Errorf(platform.KindInvalidParameter, "page is too large")
	}
	switch {
	case of.Q == "":
	case strings.Contains(of.Q, "@"):
		f.CustomerEmail = of.Q
	default:
		f.ClientOrderID = of.Q
	}
	if of.Status != "" {
		st, ok := schema.ParseStatus(of.Status)
		if !ok {
			return of, platform.Errorf(platform.KindInvalidParameter, "unknown status %q", of.Status)
		}
		f.Status = &st
	}
	if of.Method != "" {
		if !schema.Method(of.Method).Known() {
			return of, platform.Errorf(platform.KindInvalidParameter, "unknown payment method %q", of.Method)
		}
		f.Method = schema.Method(of.Method)
	}
	if of.Currency != "" && !schema.KnownCurrency(of.Currency) {
		return of, platform.Errorf(platform.KindInvalidParameter, "unknown currency %q", of.Currency)
	}
	var err error
	if f.From, err = day(of.From, "from"); err != nil {
		return of, err
	}
	if f.To, err = day(of.To, "to"); err != nil {
		return of, err
	}
	if !f.To.IsZero() {
		f.To = f.To.Add(24 * time.Hour) // "to" is the last day shown, included
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return of, platform.Errorf(platform.KindInvalidParameter, "from must be before to")
	}
	of.f = f
	return of, nil
}

// day reads a date of the form's date fields (UTC days).
func day(v, name string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse("2006-01-02", v)
	if err != nil || t.Year() < 1971 || t.Year() > 2100 {
		return time.Time{}, platform.Errorf(platform.KindInvalidParameter, "%s must be a date like 2026-11-26", name)
	}
	return t, nil
}

// orders is the orders page: search, filters, one page of the listing.
// A paymentId typed in the search box goes straight to that order.
func (c *Console) orders(ctx *fiber.Ctx) error {
	s := frame.SessionOf(ctx)
	v := c.ui.View(ctx, "orders_title")
	v.Scripts = []string{"console.js"}
	ov := ordersView{Statuses: []string{"pending", "ready", "paid", "failed", "cancelled"}, Methods: methodNames(), Currency: currencies(),
		Live: c.d.Live != nil}
	of, err := parseFilter(ctx, s.AppID)
	ov.F = of
	v.Data = &ov
	if err != nil {
		v.Status, v.Problem = fiber.StatusBadRequest, platform.Classify(err).Msg
		return c.ui.Render(ctx, "orders", v)
	}
	if _, ok := schema.ParseOrderID(of.Q); ok {
		o, err := c.own(ctx, of.Q)
		if err == nil {
			return c.ui.Redirect(ctx, Base+"/orders/"+url.PathEscape(o.ID))
		}
		if !errors.Is(err, errNotOurs) {
			return c.ui.Fail(ctx, err)
		}
		ov.NotFound = of.Q
		of.f.ClientOrderID = of.Q // it may also be a clientOrderId that looks like an id
	}
	of.f.Limit = c.cfg.PageSize
	total, rows, err := c.page(ctx, of.f)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	for i := range rows {
		ov.Rows = append(ov.Rows, rowOf(&rows[i]))
	}
	q, _ := url.ParseQuery(string(ctx.Request().URI().QueryString()))
	ov.Pager = frame.NewPager(Base+"/orders", q, of.f.Page, c.cfg.PageSize, total)
	if v.Can("reports.export") && of.f.CustomerEmail == "" {
		ov.Export = Base + "/orders/export?" + exportQuery(of).Encode()
	}
	return c.ui.Render(ctx, "orders", v)
}

// page reads one page and the total through the ClickHouse gate, with the
// API's listing use case: the total of an unfiltered or status-only page
// from Redis' counters, of other filters from the report rollups.
func (c *Console) page(ctx *fiber.Ctx, f query.Filter) (int, []schema.Order, error) {
	release, err := c.gate.Acquire(ctx.UserContext(), f.AppID)
	if err != nil {
		return 0, nil, err
	}
	defer release()
	total, rows, err := c.d.Reads.Listing.Page(ctx.UserContext(), f)
	if err != nil {
		return 0, nil, unavailable(err)
	}
	return total, rows, nil
}

func unavailable(err error) error {
	return &platform.Error{Kind: platform.KindUnavailable, Msg: "orders are unavailable; retry later", Err: err}
}

func exportQuery(of orderFilter) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"q": of.Q, "status": of.Status, "method": of.Method, "currency": of.Currency, "from": of.From, "to": of.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

func methodNames() []string {
	var out []string
	for _, m := range schema.AllMethods() {
		out = append(out, string(m))
	}
	return out
}

func currencies() []string {
	var out []string
	for _, m := range schema.AllMethods() {
		for _, cur := range m.Currencies() {
			if !slices.Contains(out, cur) {
				out = append(out, cur)
			}
		}
	}
	slices.Sort(out)
	return out
}
