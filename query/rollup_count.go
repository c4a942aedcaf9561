package query

import (
	"context"
	"fmt"
	"time"
)

// A listing's bounds when it names none: no order is created before 1970
// or after 2105, so these select every order, as no bound does. Not 2106:
// 18.16 reads toDateTime('2106-01-01 00:00:00') as 0, and a rounded-up
// 2105-12-31T23:59:59.5 would become that.
var (
	listingFirst = time.Unix(0, 0).UTC()
	listingEnd   = time.Date(2105, 1, 1, 0, 0, 0, 0, time.UTC)
)

// RollupCount is how many orders f matches, counted from the report
// rollups: the cells of the hours whose rollup is current plus a live fold
// of the rest (rollup_plan.go), exact by the reports' argument
// (docs/reporting.md) and equal to Count for the filters it takes: status,
// method, currency (each as the order is now, like Count's fold) and the
// creation time's [From, To) to the millisecond, every order counted once
// whatever its versions, sandbox orders included as Count includes them.
// ok is false, and the caller counts in ClickHouse, for a clientOrderId or
// e-mail search (the rollups do not hold them; those searches are
// selective, so their count is cheap) and when no hour of the range is
// rolled up (the count would be the same live fold).
func (c *ClickHouseOrders) RollupCount(ctx context.Context, f Filter) (n int, ok bool, err error) {
	if c.noRollups || f.ClientOrderID != "" || f.CustomerEmail != "" {
		return 0, false, nil
	}
	rf := ReportFilter{AppID: f.AppID, From: f.From, To: f.To, Method: f.Method, Currency: f.Currency, Status: f.Status}
	if rf.From.IsZero() {
		rf.From = listingFirst
	}
	if rf.To.IsZero() || rf.To.After(listingEnd) {
		rf.To = listingEnd
	}
	if rf.From.After(listingEnd) {
		rf.From = listingEnd
	}
	if !rf.From.Before(rf.To) {
		return 0, false, nil // nothing to count; Count finds nothing at once
	}
	p, err := c.plan(ctx, rf)
	if err != nil {
		return 0, false, fmt.Errorf("count orders from rollups: %w", err)
	}
	if len(p.rolled) == 0 {
		return 0, false, nil
	}
	units, args := unitsOf(rf, p, countColumns)
	var total uint64
	if err := c.conn.QueryRow(readCtx(ctx), "SELECT sum(n) FROM ("+units+")", args...).Scan(&total); err != nil {
		return 0, false, fmt.Errorf("count orders from rollups: %w", err)
	}
	return int(total), true, nil
}
