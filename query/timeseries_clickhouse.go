package query

import (
	"context"
	"fmt"
	"strconv"
	"time"

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
	p := reportPlan{live: []span{{f.From, f.To}}}
	if wholeHourZone(f.From, f.To, s.TZ) {
		var err error
		if p, err = c.plan(ctx, f); err != nil {
			return nil, fmt.Errorf("series: %w", err)
		}
	}
	units, args := unitsOf(f, p, seriesColumns)
	q := "SELECT " + seriesBucketSQL(s.Interval, s.TZ) + " AS b, " + group + " AS g, cur, sum(n), sumIf(n, st = 2), sumIf(amt, st = 2) FROM (" +
		units + ") GROUP BY b, g, cur"
	rows, err := c.conn.Query(p.ctx(ctx), q, args...)
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

// wholeHourZone tells whether tz's offset from UTC is a whole number of
// hours all through [from, to]: then every local hour, midnight, Monday and
// first of the month starts on a UTC hour, and each bucket is a union of
// the hourly rollups. Zones like Asia/Kolkata (+05:30) or Asia/Kathmandu
// (+05:45) are folded live instead. An unknown zone answers false.
func wholeHourZone(from, to time.Time, tz string) bool {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return false
	}
	for t := from; ; t = t.Add(time.Hour) {
		if t.After(to) {
			t = to
		}
		if _, off := t.In(loc).Zone(); off%3600 != 0 {
			return false
		}
		if t.Equal(to) {
			return true
		}
	}
}
