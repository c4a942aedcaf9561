package query

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// Listing is the orders listing use case: one page of a merchant's orders
// and how many the filter matches. The API's action=orders, the merchant
// console's orders page and the operator's read-only view of a merchant
// all list through one Listing, so a total is taken the same cheap way
// behind every door (the console used to count a million orders in
// ClickHouse on every page).
type Listing struct {
	lister  Lister
	totals  Totals
	rollups RollupCounter
}

// RollupCounter counts a filter's orders from the report rollups; ok is
// false when the filter names something the rollups do not hold
// (ClickHouseOrders.RollupCount).
type RollupCounter interface {
	RollupCount(ctx context.Context, f Filter) (n int, ok bool, err error)
}

// ListingDeps are the read models a Listing draws on. Lister is required;
// Totals (Redis' order counters) and Rollups may be nil, and the total is
// then counted in ClickHouse.
type ListingDeps struct {
	Lister  Lister
	Totals  Totals
	Rollups RollupCounter
}

// NewListing builds the listing use case; wire it once per process.
func NewListing(d ListingDeps) (*Listing, error) {
	if d.Lister == nil {
		return nil, fmt.Errorf("query: the listing needs a lister")
	}
	return &Listing{lister: d.Lister, totals: d.Totals, rollups: d.Rollups}, nil
}

// Page reads the page and its total. The total of an unfiltered listing is
// the merchant's order counter, that of a listing filtered by status alone
// the merchant's counter of that status: either may be ahead of the page by
// the changes of the last moment not yet projected. A filter of status,
// method, currency and creation time is counted from the report rollups
// (exactly what ClickHouse would count, TestListingTotalFromRollups); a
// search by clientOrderId or e-mail is counted in ClickHouse (it is
// selective, so that count is cheap).
//
// The total is taken while the page is read: a filtered listing's two
// ClickHouse queries (the page, the rollup count) then cost the longer of
// the two, not their sum. Both finish before Page returns, so nothing of
// f (which may point into a request's memory) outlives the call.
func (l *Listing) Page(ctx context.Context, f Filter) (int, []schema.Order, error) {
	type counted struct {
		n   int
		err error
	}
	total := make(chan counted, 1)
	go func() {
		n, err := l.total(ctx, f)
		total <- counted{n, err}
	}()
	orders, err := l.lister.Page(ctx, f)
	t := <-total
	if err != nil {
		return 0, nil, err
	}
	return t.n, orders, t.err
}

func (l *Listing) total(ctx context.Context, f Filter) (int, error) {
	switch {
	case l.totals == nil:
	case f.unfiltered():
		return l.totals.Total(ctx, f.AppID)
	case f.statusOnly():
		n, ok, err := l.totals.StatusTotal(ctx, f.AppID, *f.Status)
		if err != nil || ok {
			return n, err
		}
	}
	// The rollups hold no refunded amounts: a refund state is counted in
	// ClickHouse (it narrows to paid orders, a cheap count).
	if l.rollups != nil && f.Refunded == RefundedAny {
		n, ok, err := l.rollups.RollupCount(ctx, f)
		if err != nil || ok {
			return n, err
		}
	}
	return l.lister.Count(ctx, f)
}
