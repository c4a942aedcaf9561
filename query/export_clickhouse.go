package query

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// Export windows: a window is a span of creation seconds read in one
// query, sorted newest first with each order's versions together, highest
// first. Its span adapts so that a window holds about exportWindowRows
// rows: the memory of an export is one window's block in flight, whatever
// the range, and ClickHouse 18.16, which cannot read a sort key backwards,
// sorts one window at a time instead of the whole range.
const (
	exportWindowRows  = 20_000
	exportFirstWindow = time.Hour
	exportMaxWindow   = 31 * 24 * time.Hour
)

type exportCursor struct {
	c      *ClickHouseOrders
	f      ReportFilter
	lo, hi time.Time // the next window ends at hi (exclusive); nothing before lo
	span   time.Duration
}

// Export starts f's export: the first window now, the rest on demand.
func (c *ClickHouseOrders) Export(ctx context.Context, f ReportFilter) ([]schema.Order, ExportRest, error) {
	cur := &exportCursor{c: c, f: f, lo: f.From.Truncate(time.Second), hi: f.To.Truncate(time.Second).Add(time.Second), span: exportFirstWindow}
	var first []schema.Order
	if err := cur.window(ctx, func(o *schema.Order) error { first = append(first, *o); return nil }); err != nil {
		return nil, nil, err
	}
	rest := func(emit func(*schema.Order) error) error {
		for cur.hi.After(cur.lo) {
			if err := cur.window(ctx, emit); err != nil {
				return err
			}
		}
		return nil
	}
	return first, rest, nil
}

// window emits the orders of the next window and moves the cursor back.
func (x *exportCursor) window(ctx context.Context, emit func(*schema.Order) error) error {
	if !x.hi.After(x.lo) {
		return nil
	}
	lo := x.hi.Add(-x.span)
	if lo.Before(x.lo) {
		lo = x.lo
	}
	conds := []string{"appid = ?", "created_at >= ?", "created_at < ?", "created_ms >= ?", "created_ms < ?"}
	args := []any{x.f.AppID, lo, x.hi, uint64(x.f.From.UnixMilli()), uint64(x.f.To.UnixMilli())}
	if x.f.Currency != "" {
		conds = append(conds, "currency = ?")
		args = append(args, x.f.Currency)
	}
	if x.f.ClientOrderID != "" {
		conds = append(conds, "client_order_id = ?")
		args = append(args, x.f.ClientOrderID)
	}
	rows, err := x.c.conn.Query(ctx, "SELECT "+schema.OrderSelect+" FROM orders WHERE "+strings.Join(conds, " AND ")+
		" ORDER BY created_at DESC, id DESC, version DESC", args...)
	if err != nil {
		return fmt.Errorf("export window: %w", err)
	}
	defer rows.Close()
	n, last := 0, ""
	for rows.Next() {
		o, err := schema.ScanOrder(rows)
		if err != nil {
			return fmt.Errorf("export window: %w", err)
		}
		n++
		if o.ID == last {
			continue // an older version, or the same one inserted twice
		}
		last = o.ID
		if (x.f.Method != "" && o.Method != x.f.Method) || (x.f.Status != nil && o.Status != *x.f.Status) {
			continue
		}
		if err := emit(&o); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export window: %w", err)
	}
	x.hi = lo
	switch {
	case n < exportWindowRows/4 && x.span < exportMaxWindow:
		x.span *= 2
	case n > exportWindowRows && x.span > time.Second:
		x.span /= 2
	}
	return nil
}
