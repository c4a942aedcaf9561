package query

import (
	"context"
	"errors"
	"sync"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// What another door reads (the epay door's api.php, whose merchant its key
// proved): the same read models and the same "only the merchant's own"
// rule as GET /api/order, but the orders themselves rather than SPEC.md's
// view, since that door answers fields the view does not carry (the type
// word, the pass-through param). The caller spends the merchant's budget.

// OrderFor is the order id names if it is acct's: Redis first, ClickHouse
// past retention. Another merchant's order is answered exactly like a
// missing one (KindNotFound), so ids of other merchants cannot be probed.
func (q *Orders) OrderFor(ctx context.Context, acct *merchant.Account, id string) (*schema.Order, error) {
	o, err := q.find(ctx, acct.AppID, id)
	if errors.Is(err, ErrNotFound) || (err == nil && o.AppID != acct.AppID) {
		return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	return o, err
}

// PageFor is a listing page of acct's orders (f.AppID is set to acct's,
// whatever the caller put there) and its total. Each order Redis still
// holds is answered as Redis has it: the listing's copy may lag its last
// change, and only Redis keeps a door's own fields.
func (q *Orders) PageFor(ctx context.Context, acct *merchant.Account, f Filter) (int, []schema.Order, error) {
	if q.listing == nil {
		return 0, nil, platform.Errorf(platform.KindUnavailable, "order listing is not served by this node")
	}
	f.AppID = acct.AppID
	release, err := q.gate.Acquire(ctx, f.AppID)
	if err != nil {
		return 0, nil, err
	}
	total, orders, err := q.listing.Page(ctx, f)
	release()
	if err != nil {
		q.log.Error("list orders", "err", err)
		return 0, nil, &platform.Error{Kind: platform.KindUnavailable, Msg: "order listing is unavailable; retry later", Err: err}
	}
	q.freshen(ctx, acct.AppID, orders)
	return total, orders, nil
}

// freshen replaces each listed order by Redis' copy when Redis holds it;
// a failed read keeps the listing's copy.
func (q *Orders) freshen(ctx context.Context, appid string, orders []schema.Order) {
	var wg sync.WaitGroup
	for i := range orders {
		wg.Add(1)
		go func(o *schema.Order) {
			defer wg.Done()
			if live, err := q.live.Order(ctx, o.ID); err == nil && live.AppID == appid {
				*o = *live
			}
		}(&orders[i])
	}
	wg.Wait()
}
