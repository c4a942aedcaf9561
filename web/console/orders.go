package console

import (
	"errors"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
	"github.com/paygate/gateway/web/server"
)

// orders is the orders page: search, filters, one page of the listing.
// A paymentId typed in the search box goes straight to that order.
func (c *Console) orders(ctx *fiber.Ctx) error {
	s := frame.SessionOf(ctx)
	v := c.ui.View(ctx, "orders_title")
	v.Scripts = []string{"console.js"}
	ov := orderview.OrderList{Statuses: orderview.Statuses(), Methods: orderview.MethodNames(), Currency: orderview.Currencies(),
		Live: c.d.Live != nil}
	of, err := orderview.ParseForm(ctx, s.AppID)
	ov.F = of
	v.Data = &ov
	if err != nil {
		v.Status, v.Problem = fiber.StatusBadRequest, server.Classify(err).Msg
		return c.ui.Render(ctx, "orders", v)
	}
	if _, ok := schema.ParseOrderID(of.Q); ok {
		o, err := c.own(ctx, of.Q)
		if err == nil {
			return c.ui.Redirect(ctx, Base+"/orders/"+url.PathEscape(o.ID))
		}
		if !errors.Is(err, orderview.ErrNotOurs) {
			return c.ui.Fail(ctx, err)
		}
		ov.NotFound = of.Q
		of.Query.ClientOrderID = of.Q // it may also be a clientOrderId that looks like an id
	}
	of.Query.Limit = c.cfg.PageSize
	total, rows, err := c.read.Page(ctx, of.Query)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	for i := range rows {
		ov.Rows = append(ov.Rows, orderview.RowOf(&rows[i]))
	}
	q, _ := url.ParseQuery(string(ctx.Request().URI().QueryString()))
	ov.Pager = frame.NewPager(Base+"/orders", q, of.Query.Page, c.cfg.PageSize, total).Showing(len(rows))
	if v.Can("reports.export") && of.Query.CustomerEmail == "" {
		ov.Export = Base + "/orders/export?" + exportQuery(of).Encode()
	}
	return c.ui.Render(ctx, "orders", v)
}

func exportQuery(of orderview.Form) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"q": of.Q, "status": of.Status, "method": of.Method, "currency": of.Currency, "from": of.From, "to": of.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}
