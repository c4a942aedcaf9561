package query

import (
	"context"
	"fmt"
	"time"
)

// hourCells is one merchant hour's rollup row: parallel arrays, one entry
// per (method, currency, status) cell.
type hourCells struct {
	method, currency []string
	status           []uint8
	orders           []uint64
	amount, refunded []int64
	times            [][]int64
}

// foldSpan folds appid's orders created in [lo, hi) (whole hours) with the
// reports' own fold and writes one report_hourly row per hour, an hour
// without orders included (it is then known to be empty).
func (r *Rollup) foldSpan(ctx context.Context, appid string, lo, hi time.Time, asOf uint64) error {
	fold, args := foldedOrdersIn(ReportFilter{AppID: appid, From: lo, To: hi}, []span{{lo, hi}})
	rows, err := r.conn.Query(ctx, "SELECT toStartOfHour(at, 'UTC') AS h, m, cur, st, count(), sum(amt), sum(rfd), "+
		"groupArrayIf(toInt64(done) - toInt64(cms), st = 2 AND done > 0) FROM ("+fold+") GROUP BY h, m, cur, st", args...)
	if err != nil {
		return fmt.Errorf("rollup fold: %w", err)
	}
	defer rows.Close()
	cells := map[int64]*hourCells{}
	for h := lo; h.Before(hi); h = h.Add(time.Hour) {
		cells[h.Unix()] = &hourCells{method: []string{}, currency: []string{}, status: []uint8{}, orders: []uint64{},
			amount: []int64{}, refunded: []int64{}, times: [][]int64{}}
	}
	for rows.Next() {
		var (
			h        time.Time
			m, cur   string
			st       uint8
			n        uint64
			amt, rfd int64
			ts       []int64
		)
		if err := rows.Scan(&h, &m, &cur, &st, &n, &amt, &rfd, &ts); err != nil {
			return fmt.Errorf("rollup fold: %w", err)
		}
		c := cells[h.Unix()]
		if c == nil {
			return fmt.Errorf("rollup fold: hour %s outside [%s, %s)", h, lo, hi)
		}
		c.method, c.currency, c.status = append(c.method, m), append(c.currency, cur), append(c.status, st)
		c.orders, c.amount, c.refunded = append(c.orders, n), append(c.amount, amt), append(c.refunded, rfd)
		c.times = append(c.times, ts)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rollup fold: %w", err)
	}
	b, err := r.conn.PrepareBatch(ctx, "INSERT INTO report_hourly (appid, hour, as_of_ms, c_method, c_currency, c_status, c_orders, c_amount, c_refunded, c_times)")
	if err != nil {
		return fmt.Errorf("rollup insert: %w", err)
	}
	for h, c := range cells {
		if err := b.Append(appid, time.Unix(h, 0).UTC(), asOf, c.method, c.currency, c.status, c.orders, c.amount, c.refunded, c.times); err != nil {
			_ = b.Abort()
			return fmt.Errorf("rollup insert: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("rollup insert: %w", err)
	}
	return nil
}
