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
	kept   int // orders the last window emitted
	row    *exportScan
}

// exportSelect is what the export reads of a row: the CSV's fields and
// the version, not the payer's details, links or provider state that
// OrderSelect adds (a third of the bytes ClickHouse would read and send).
const exportSelect = "id, version, sandbox, client_order_id, amount, currency, method, status, description, notify_url, " +
	"return_url, payable_amount, paid_with_balance, created_ms, completed_ms, pay_currency, charge_amount, " +
	"charge_currency, fx_rate, refunded_amount"

// exportScan is one export's scan destination, reused row after row: the
// driver's Scan takes its destinations as interfaces, so destinations
// declared per row escaped to the heap, eleven allocations a row.
type exportScan struct {
	o                    schema.Order
	version, cms, dms    uint64
	sandbox, status, pwb uint8
	amount, charge, rfd  int64
	method               string
	dest                 []any
}

func newExportScan() *exportScan {
	s := &exportScan{}
	o := &s.o
	s.dest = []any{&o.ID, &s.version, &s.sandbox, &o.ClientOrderID, &s.amount, &o.Currency, &s.method, &s.status,
		&o.Description, &o.NotifyURL, &o.ReturnURL, &o.PayableAmount, &s.pwb, &s.cms, &s.dms, &o.PayCurrency,
		&s.charge, &o.ChargeCurrency, &o.FXRate, &s.rfd}
	return s
}

// scan reads the next row into s.o.
func (s *exportScan) scan(r schema.Scanner) error {
	if err := r.Scan(s.dest...); err != nil {
		return err
	}
	o := &s.o
	o.Version, o.Sandbox, o.Status, o.PaidWithBalance = int64(s.version), s.sandbox == 1, schema.Status(s.status), s.pwb == 1
	o.Amount, o.Method, o.ChargeAmount, o.Refunded = schema.Amount(s.amount), schema.Method(s.method), schema.Amount(s.charge), schema.Amount(s.rfd)
	o.CreatedAt, o.CompletedAt = time.UnixMilli(int64(s.cms)).UTC(), time.Time{}
	if s.dms != 0 {
		o.CompletedAt = time.UnixMilli(int64(s.dms)).UTC()
	}
	return nil
}

// Export starts f's export: the first window now, the rest on demand. The
// rest reads one window ahead of the one being written, so ClickHouse
// sorts the next while the gateway formats this one (memory: three
// windows at most).
func (c *ClickHouseOrders) Export(ctx context.Context, f ReportFilter) ([]schema.Order, ExportRest, error) {
	cur := &exportCursor{c: c, f: f, lo: f.From.Truncate(time.Second), hi: f.To.Truncate(time.Second).Add(time.Second), span: exportFirstWindow, row: newExportScan()}
	first, err := cur.window(ctx)
	if err != nil {
		return nil, nil, err
	}
	rest := func(emit func(*schema.Order) error) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		wins, errc := make(chan []schema.Order, 1), make(chan error, 1)
		go func() {
			defer close(wins)
			for cur.hi.After(cur.lo) {
				w, err := cur.window(ctx)
				if err != nil {
					errc <- err
					return
				}
				select {
				case wins <- w:
				case <-ctx.Done():
					return
				}
			}
		}()
		for w := range wins {
			for i := range w {
				if err := emit(&w[i]); err != nil {
					cancel()
					for range wins { // let the reader end
					}
					return err
				}
			}
		}
		select {
		case err := <-errc:
			return err
		default:
			return nil
		}
	}
	return first, rest, nil
}

// window reads the orders of the next window, latest versions only and
// filtered, and moves the cursor back.
func (x *exportCursor) window(ctx context.Context) ([]schema.Order, error) {
	if !x.hi.After(x.lo) {
		return nil, nil
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
	rows, err := x.c.conn.Query(ctx, "SELECT "+exportSelect+" FROM orders WHERE "+strings.Join(conds, " AND ")+
		" ORDER BY created_at DESC, id DESC, version DESC", args...)
	if err != nil {
		return nil, fmt.Errorf("export window: %w", err)
	}
	defer rows.Close()
	out := make([]schema.Order, 0, x.kept) // about as many as the last window kept
	n, last := 0, ""
	o := &x.row.o
	for rows.Next() {
		if err := x.row.scan(rows); err != nil {
			return nil, fmt.Errorf("export window: %w", err)
		}
		n++
		if o.ID == last {
			continue // an older version, or the same one inserted twice
		}
		last = o.ID
		if (x.f.Method != "" && o.Method != x.f.Method) || (x.f.Status != nil && o.Status != *x.f.Status) || !x.f.Refunded.Match(o) {
			continue
		}
		out = append(out, *o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("export window: %w", err)
	}
	x.hi, x.kept = lo, len(out)
	switch {
	case n < exportWindowRows/4 && x.span < exportMaxWindow:
		x.span *= 2
	case n > exportWindowRows && x.span > time.Second:
		x.span /= 2
	}
	return out, nil
}
