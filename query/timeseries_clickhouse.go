package query

import (
	"context"
	"fmt"
	"strconv"

	"github.com/paygate/gateway/schema"
)

// seriesBucketSQL is the bucket key of a folded order's creation time in
// the zone, as bucketKey names it. Every function here takes a zone
// argument on ClickHouse 18.16 and on current releases. The zone is a
// literal (a name tzName admitted): these functions need a constant.
func seriesBucketSQL(interval, tz string) string {
	z := "'" + tz + "'"
	switch interval {
	case "hour":
		return "toString(toUnixTimestamp(toStartOfHour(at, " + z + ")))"
	case "day":
		return "toString(toDate(at, " + z + "))"
	case "week":
		return "toString(toMonday(at, " + z + "))"
	}
	return "toString(toStartOfMonth(at, " + z + "))"
}

var seriesGroupSQL = map[string]string{"status": "toString(st)", "paymentMethod": "m", "currency": "cur"}

// Series counts f's folded orders per bucket, group and currency, with
// their paid counts and amounts.
func (c *ClickHouseOrders) Series(ctx context.Context, f ReportFilter, s SeriesSpec) ([]SeriesRow, error) {
	group, ok := seriesGroupSQL[s.GroupBy]
	if !ok || !tzName.MatchString(s.TZ) {
		return nil, fmt.Errorf("series: bad spec %+v", s)
	}
	fold, args := foldedOrders(f)
	q := "SELECT " + seriesBucketSQL(s.Interval, s.TZ) + " AS b, " + group + " AS g, cur, count(), countIf(st = 2), sumIf(amt, st = 2) FROM (" +
		fold + ") GROUP BY b, g, cur"
	rows, err := c.conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("series: %w", err)
	}
	defer rows.Close()
	var out []SeriesRow
	for rows.Next() {
		var (
			r       SeriesRow
			n, paid uint64
		)
		if err := rows.Scan(&r.Bucket, &r.Group, &r.Currency, &n, &paid, &r.PaidAmount); err != nil {
			return nil, fmt.Errorf("series: %w", err)
		}
		r.Count, r.Paid = int(n), int(paid)
		if s.GroupBy == "status" {
			code, _ := strconv.Atoi(r.Group)
			r.Group = schema.Status(code).String()
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("series: %w", err)
	}
	return out, nil
}
