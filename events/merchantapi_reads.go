package events

import (
	"context"
	"strconv"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// List is acct's endpoints, oldest first.
func (a *API) List(ctx context.Context, acct *merchant.Account) ([]Endpoint, error) {
	return a.store.List(ctx, acct.AppID)
}

// Read is endpoint id of acct (404 for another merchant's).
func (a *API) Read(ctx context.Context, acct *merchant.Account, id string) (Endpoint, error) {
	return a.store.Get(ctx, acct.AppID, id)
}

// DeliveriesPage is a page of endpoint id's deliveries, newest first;
// before is the previous page's next cursor ("" for the newest).
func (a *API) DeliveriesPage(ctx context.Context, acct *merchant.Account, id, before, limit string) ([]Delivery, string, error) {
	b, n, err := platform.CursorPage(before, limit)
	if err != nil {
		return nil, "", err
	}
	if _, err := a.store.Get(ctx, acct.AppID, id); err != nil {
		return nil, "", err // another merchant's endpoint is 404 before any delivery is read
	}
	if a.deliveries == nil {
		return nil, "", ErrNoDeliveries
	}
	ds, next, err := a.deliveries.Deliveries(ctx, acct.AppID, id, b, n)
	if err != nil {
		return nil, "", err
	}
	cursor := ""
	if next > 0 {
		cursor = strconv.FormatInt(next, 10)
	}
	return ds, cursor, nil
}
