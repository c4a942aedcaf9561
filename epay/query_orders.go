package epay

import (
	"context"
	"strconv"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// OrdersAnswer is act=orders' answer: the page's orders, newest first,
// and how many it holds.
type OrdersAnswer struct {
	Code  int        `json:"code"`
	Msg   string     `json:"msg"`
	Count int        `json:"count"`
	Data  []OrderRow `json:"data"`
}

// act=orders' paging: limit defaults to 10 and is read as at most 50, as
// the reference does; offset (rows to skip) defaults to 0; page (from 1)
// is accepted too, some of the protocol's documents name it.
const (
	DefaultOrdersLimit = 10
	MaxOrdersLimit     = 50
	maxListPage        = 1_000_000 // the listing's deepest page
)

// orders is act=orders.
func (a *API) orders(ctx context.Context, acct *merchant.Account, p Params) (OrdersAnswer, error) {
	limit, offset, err := paging(p)
	if err != nil {
		return OrdersAnswer{}, err
	}
	f := query.Filter{Limit: limit}
	switch p["status"] {
	case "":
	case "1":
		paid := schema.StatusPaid
		f.Status = &paid
	default:
		return OrdersAnswer{}, apiRefused("status must be 1 (paid) or left out")
	}
	if err := a.allow(ctx, acct, platform.ClassReport); err != nil {
		return OrdersAnswer{}, err
	}
	orders, err := a.window(ctx, acct, f, offset)
	if err != nil {
		return OrdersAnswer{}, err
	}
	t, err := a.d.Types.Types(ctx)
	if err != nil {
		return OrdersAnswer{}, err
	}
	out := OrdersAnswer{Code: APICodeOK, Msg: "succ", Count: len(orders), Data: make([]OrderRow, len(orders))}
	loc := zone(acct)
	for i := range orders {
		out.Data[i] = Row(&orders[i], t, loc)
	}
	return out, nil
}

// window reads f.Limit orders from offset: the listing's pages of that
// size holding them (one, or two when offset falls inside a page).
func (a *API) window(ctx context.Context, acct *merchant.Account, f query.Filter, offset int) ([]schema.Order, error) {
	first, skip := offset/f.Limit+1, offset%f.Limit
	var rows []schema.Order
	for page := first; page <= first+1 && page <= maxListPage; page++ {
		f.Page = page
		_, got, err := a.d.Orders.PageFor(ctx, acct, f)
		if err != nil {
			return nil, fromAPIDomain(err)
		}
		rows = append(rows, got...)
		if skip == 0 || len(got) < f.Limit {
			break
		}
	}
	if skip >= len(rows) {
		return nil, nil
	}
	rows = rows[skip:]
	return rows[:min(len(rows), f.Limit)], nil
}

// paging reads limit and offset (or page). limit above the maximum is
// read as the maximum, as the reference does; the rest must be whole
// numbers in range.
func paging(p Params) (limit, offset int, err error) {
	limit, offset = DefaultOrdersLimit, 0
	if v := p["limit"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, apiRefused("limit must be a whole number from 1")
		}
		limit = min(n, MaxOrdersLimit)
	}
	if v := p["offset"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, apiRefused("offset must be a whole number from 0")
		}
		return limit, n, nil
	}
	if v := p["page"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListPage {
			return 0, 0, apiRefused("page must be a whole number from 1")
		}
		offset = (n - 1) * limit
	}
	return limit, offset, nil
}
