package query

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
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

func newHourCells() *hourCells {
	return &hourCells{method: []string{}, currency: []string{}, status: []uint8{}, orders: []uint64{},
		amount: []int64{}, refunded: []int64{}, times: [][]int64{}}
}

// foldDay folds the orders of appids created in [lo, hi) (whole hours of
// one day) with the reports' own fold, and writes one report_cells row per
// merchant and hour, an hour without orders included (it is then known to
// be empty, and readers see no gap). Hours that were not stale get a fresh
// snapshot too, which is as exact as the one they had.
func (r *Rollup) foldDay(ctx context.Context, appids []string, lo, hi time.Time, asOf uint64) (int, error) {
	if !lo.Before(hi) {
		return 0, nil
	}
	set := make([]any, len(appids))
	cells := map[hourKey]*hourCells{}
	for i, a := range appids {
		set[i] = a
		for h := lo; h.Before(hi); h = h.Add(time.Hour) {
			cells[hourKey{a, h.Unix()}] = newHourCells()
		}
	}
	rows, err := r.conn.Query(ctx, "SELECT appid, toStartOfHour(at, 'UTC') AS h, m, cur, st, count(), sum(amt), sum(rfd), "+
		"groupArrayIf(toInt64(done) - toInt64(cms), st = 2 AND done > 0) FROM (SELECT appid, id, "+foldedColumns+
		" FROM orders WHERE appid IN ? AND created_at >= ? AND created_at < ? GROUP BY appid, id) GROUP BY appid, h, m, cur, st",
		clickhouse.GroupSet{Value: set}, lo, hi)
	if err != nil {
		return 0, fmt.Errorf("rollup fold: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			appid, m, cur string
			h             time.Time
			st            uint8
			n             uint64
			amt, rfd      int64
			ts            []int64
		)
		if err := rows.Scan(&appid, &h, &m, &cur, &st, &n, &amt, &rfd, &ts); err != nil {
			return 0, fmt.Errorf("rollup fold: %w", err)
		}
		c := cells[hourKey{appid, h.Unix()}]
		if c == nil {
			return 0, fmt.Errorf("rollup fold: %s hour %s outside [%s, %s)", appid, h, lo, hi)
		}
		c.method, c.currency, c.status = append(c.method, m), append(c.currency, cur), append(c.status, st)
		c.orders, c.amount, c.refunded = append(c.orders, n), append(c.amount, amt), append(c.refunded, rfd)
		c.times = append(c.times, ts)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("rollup fold: %w", err)
	}
	return len(cells), r.write(ctx, cells, asOf)
}

// write inserts the rows of one fold in one batch.
func (r *Rollup) write(ctx context.Context, cells map[hourKey]*hourCells, asOf uint64) error {
	b, err := r.conn.PrepareBatch(ctx, "INSERT INTO report_cells (appid, hour, as_of_ms, c_method, c_currency, c_status, c_orders, c_amount, c_refunded, c_times)")
	if err != nil {
		return fmt.Errorf("rollup insert: %w", err)
	}
	for k, c := range cells {
		if err := b.Append(k.appid, time.Unix(k.hour, 0).UTC(), asOf, c.method, c.currency, c.status, c.orders, c.amount, c.refunded, c.times); err != nil {
			_ = b.Abort()
			return fmt.Errorf("rollup insert: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("rollup insert: %w", err)
	}
	return nil
}
