package console

import (
	"context"
	"errors"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/web/frame"
)

// ReadOnly is the console's read code for someone who is not one of the
// merchant's people: the operator console's audited view of a merchant's
// console. It is built without Actions, so nothing it returns
// can lead to a write, and every order it shows is checked to be appid's
// exactly as the console checks a merchant user's.
type ReadOnly struct{ c *Console }

// The pages' data, named for the operator console's templates.
type (
	Overview    = overviewView
	OrderList   = ordersView
	OrderDetail = orderView
)

// NewReadOnly reads through reads (the console's own read models) and
// gate (nil: none).
func NewReadOnly(cfg Config, reads Reads, gate Gate) (*ReadOnly, error) {
	cfg.defaults()
	if reads.Live == nil || reads.Listing == nil || reads.Reports == nil {
		return nil, errors.New("console read-only view: live orders, listing and reports are required")
	}
	if gate == nil {
		gate = noGate{}
	}
	return &ReadOnly{c: &Console{cfg: cfg, d: Deps{Reads: reads}, gate: gate}}, nil
}

// Overview is appid's overview page over rng (today, 7d, 30d); t names
// the charts (chart_orders, chart_volume, chart_methods).
func (r *ReadOnly) Overview(ctx context.Context, appid, rng string, t func(string, ...any) string) (*Overview, error) {
	return r.c.overviewOf(ctx, appid, rng, t)
}

// Orders is one page of appid's orders for the orders page's query
// (q, status, method, currency, from, to, page); base is where the pager
// links to. A paymentId in q is searched as a clientOrderId: the view
// links each row to its detail instead of redirecting.
func (r *ReadOnly) Orders(ctx *fiber.Ctx, appid, base string) (*OrderList, error) {
	of, err := parseFilter(ctx, appid)
	if err != nil {
		return nil, err
	}
	ov := &ordersView{F: of, Statuses: []string{"pending", "ready", "paid", "failed", "cancelled"}, Methods: methodNames(), Currency: currencies()}
	of.f.Limit = r.c.cfg.PageSize
	total, rows, err := r.c.page(ctx, of.f)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		ov.Rows = append(ov.Rows, rowOf(&rows[i]))
	}
	q, _ := url.ParseQuery(string(ctx.Request().URI().QueryString()))
	ov.Pager = frame.NewPager(base, q, of.f.Page, r.c.cfg.PageSize, total)
	return ov, nil
}

// Order is appid's order id with its timeline; another merchant's order
// or an unknown id is the console's "no such order" (404). No action is
// offered (every Can field is false).
func (r *ReadOnly) Order(ctx context.Context, appid, id string) (*OrderDetail, error) {
	o, err := r.c.ownOf(ctx, appid, id)
	if err != nil {
		return nil, err
	}
	return r.c.detail(ctx, o)
}
