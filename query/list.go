package query

import (
	"context"
	"strconv"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Filter is one listing request: a merchant's orders, newest first.
type Filter struct {
	AppID         string
	Page, Limit   int
	Status        *schema.Status
	ClientOrderID string
	Method        schema.Method // the order's method now (a select order's chosen one)
	Currency      string
	// CustomerEmail matches the payer's e-mail trimmed and in any case
	// (schema.NormalEmail), through the order_emails lookup (the merchant
	// console's search; the API does not take it).
	CustomerEmail string
	From, To      time.Time
	// Refunded narrows the listing to partly or fully refunded paid
	// orders (the consoles' filter; the API does not take it).
	Refunded Refunded
	// emailKeys are CustomerEmail's orders, found in the lookup first
	// (ClickHouseOrders.emailKeys).
	emailKeys []orderKey
}

// Lister is the read model action=orders needs: a page, and the exact
// number of orders a filter matches.
type Lister interface {
	Page(ctx context.Context, f Filter) ([]schema.Order, error)
	Count(ctx context.Context, f Filter) (int, error)
}

// Totals counts a merchant's orders without a scan (Listing.Page): Total
// all of them, StatusTotal those in one status when the counters cover
// every order (ok).
type Totals interface {
	Total(ctx context.Context, appid string) (int, error)
	StatusTotal(ctx context.Context, appid string, st schema.Status) (n int, ok bool, err error)
}

func (f *Filter) unfiltered() bool {
	return f.Status == nil && f.narrowless()
}

// narrowless is a filter with nothing but the merchant and perhaps a status.
func (f *Filter) narrowless() bool {
	return f.ClientOrderID == "" && f.CustomerEmail == "" && f.Method == "" && f.Currency == "" && f.From.IsZero() && f.To.IsZero() &&
		f.Refunded == RefundedAny
}

// statusOnly is a listing filtered by status and nothing else.
func (f *Filter) statusOnly() bool {
	return f.Status != nil && f.narrowless()
}

// Page limits of SPEC.md.
const (
	defaultLimit = 10
	maxLimit     = 50
	maxPage      = 1_000_000
)

// ListPage is action=orders' data.
type ListPage struct {
	Page   int                `json:"page"`
	Limit  int                `json:"limit"`
	Total  int                `json:"total"`
	Orders []schema.OrderView `json:"orders"`
}

// List is action=orders for the authenticated merchant acct: the page of
// its orders args' filter selects.
func (q *Orders) List(ctx context.Context, acct *merchant.Account, args Args) (ListPage, error) {
	if q.listing == nil {
		return ListPage{}, platform.Errorf(platform.KindUnavailable, "order listing is not served by this node")
	}
	f, err := parseFilter(args, acct.AppID)
	if err != nil {
		return ListPage{}, err
	}
	release, err := q.gate.Acquire(ctx, f.AppID)
	if err != nil {
		return ListPage{}, err
	}
	total, orders, err := q.listing.Page(ctx, f)
	release()
	if err != nil {
		q.log.Error("list orders", "err", err)
		return ListPage{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "order listing is unavailable; retry later", Err: err}
	}
	out := ListPage{Page: f.Page, Limit: f.Limit, Total: total, Orders: make([]schema.OrderView, len(orders))}
	for i := range orders {
		out.Orders[i] = schema.View(&orders[i], q.cfg.PublicURL)
	}
	return out, nil
}

func parseFilter(c Args, appid string) (Filter, error) {
	f := Filter{AppID: appid, Page: 1, Limit: defaultLimit, ClientOrderID: c.Query("clientOrderId")}
	var err error
	if f.Page, err = wholeParam(c, "page", 1, 1, maxPage); err != nil {
		return f, err
	}
	if f.Limit, err = wholeParam(c, "limit", defaultLimit, 1, maxLimit); err != nil {
		return f, err
	}
	if f.Status, err = statusParam(c); err != nil {
		return f, err
	}
	if f.Method, err = methodParam(c); err != nil {
		return f, err
	}
	if f.Currency, err = currencyParam(c); err != nil {
		return f, err
	}
	if f.From, err = timeParam(c, "from"); err != nil {
		return f, err
	}
	if f.To, err = timeParam(c, "to"); err != nil {
		return f, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return f, platform.Errorf(platform.KindInvalidParameter, "to must not be before from")
	}
	return f, nil
}

// wholeParam reads a whole number in [lo, hi], or def when absent.
func wholeParam(c Args, name string, def, lo, hi int) (int, error) {
	v := c.Query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi || strconv.Itoa(n) != v {
		return 0, platform.Errorf(platform.KindInvalidParameter, "%s must be a whole number from %d to %d", name, lo, hi)
	}
	return n, nil
}
