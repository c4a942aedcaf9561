package client

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ListParams narrow a listing (GET /api/order?action=orders). Zero fields
// are not sent: page 1, 10 a page, every order.
type ListParams struct {
	Page          int
	Limit         int    // at most 50
	Status        string // a status name or code
	ClientOrderID string
	PaymentMethod string
	Currency      string
	From, To      time.Time // created at or after From, before To
}

func (p ListParams) query() url.Values {
	q := url.Values{"action": {"orders"}}
	set := func(name, v string) {
		if v != "" {
			q.Set(name, v)
		}
	}
	if p.Page > 0 {
		q.Set("page", strconv.Itoa(p.Page))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	set("status", p.Status)
	set("clientOrderId", p.ClientOrderID)
	set("paymentMethod", p.PaymentMethod)
	set("currency", p.Currency)
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(time.RFC3339))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(time.RFC3339))
	}
	return q
}

// read is a GET authenticated by appid and the query key.
func (c *Client) read(ctx context.Context, path string, q url.Values, out any) error {
	if c.cfg.QueryKey == "" {
		return errors.New("paygate: " + path + ": Config.QueryKey required")
	}
	q.Set("appid", c.cfg.AppID)
	q.Set("key", c.cfg.QueryKey)
	return c.t.do(ctx, request{method: http.MethodGet, path: path, query: q}, out)
}

// Order reads one order (GET /api/order?action=order). Another merchant's
// order is answered like a missing one: *Error of kind order_not_found.
func (c *Client) Order(ctx context.Context, paymentID string) (*Order, error) {
	var o Order
	if err := c.read(ctx, "/api/order", url.Values{"action": {"order"}, "paymentId": {paymentID}}, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// Orders reads one page of orders, newest first. For the next page, call
// again with Page+1 while the answer's HasNext is true (or use AllOrders).
func (c *Client) Orders(ctx context.Context, p ListParams) (*OrderPage, error) {
	var page OrderPage
	if err := c.read(ctx, "/api/order", p.query(), &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// AllOrders yields every order p selects, page after page, and stops at
// the first error (yielded once). Pages are by number, newest first: an
// order created meanwhile pushes the older ones down a place, so a walk
// across a busy moment may see one twice; bound it with To for an exact
// walk.
func (c *Client) AllOrders(ctx context.Context, p ListParams) iter.Seq2[Order, error] {
	return func(yield func(Order, error) bool) {
		if p.Page < 1 {
			p.Page = 1
		}
		for {
			page, err := c.Orders(ctx, p)
			if err != nil {
				yield(Order{}, err)
				return
			}
			for _, o := range page.Orders {
				if !yield(o, nil) {
					return
				}
			}
			if !page.HasNext() {
				return
			}
			p.Page++
		}
	}
}
