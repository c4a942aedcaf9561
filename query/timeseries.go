package query

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// SeriesSpec is how a time series buckets and groups the orders.
type SeriesSpec struct {
	Interval string // hour, day, week (from Monday) or month
	GroupBy  string // status, paymentMethod or currency
	TZ       string // IANA name; buckets start at local midnight, hour, Monday, 1st
}

// SeriesRow is one (bucket, group, currency) cell: Bucket is the key
// bucketKey gives the bucket's start.
type SeriesRow struct {
	Bucket, Group, Currency string
	Count, Paid             int
	PaidAmount              int64
}

// SeriesGroup is one group's numbers in a bucket.
type SeriesGroup struct {
	Key        string            `json:"key"`
	Count      int               `json:"count"`
	Paid       int               `json:"paid"`
	PaidAmount map[string]string `json:"paidAmount"`
}

// SeriesBucket is one bucket, empty ones included.
type SeriesBucket struct {
	Start  string        `json:"start"` // RFC 3339 UTC
	End    string        `json:"end"`
	Groups []SeriesGroup `json:"groups"`
}

// Series is action=timeseries' data.
type Series struct {
	From     string         `json:"from"`
	To       string         `json:"to"`
	Interval string         `json:"interval"`
	GroupBy  string         `json:"groupBy"`
	TZ       string         `json:"tz"`
	Buckets  []SeriesBucket `json:"buckets"`
}

// tzName is what an IANA zone name looks like; it also keeps anything but a
// name out of the SQL, where the zone is a literal.
var tzName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$`)

func parseSeriesSpec(c Args) (SeriesSpec, *time.Location, error) {
	s := SeriesSpec{Interval: c.Query("interval", "day"), GroupBy: c.Query("groupBy", "status"), TZ: c.Query("tz", "UTC")}
	switch s.Interval {
	case "hour", "day", "week", "month":
	default:
		return s, nil, platform.Errorf(platform.KindInvalidParameter, "interval must be hour, day, week or month")
	}
	switch s.GroupBy {
	case "status", "paymentMethod", "currency":
	default:
		return s, nil, platform.Errorf(platform.KindInvalidParameter, "groupBy must be status, paymentMethod or currency")
	}
	loc, err := time.LoadLocation(s.TZ)
	if err != nil || s.TZ == "Local" || !tzName.MatchString(s.TZ) {
		return s, nil, platform.Errorf(platform.KindInvalidParameter, "tz must be an IANA time zone such as Europe/Berlin")
	}
	return s, loc, nil
}

// Timeseries is action=timeseries for the authenticated merchant acct.
func (q *Orders) Timeseries(ctx context.Context, acct *merchant.Account, args Args) (Series, error) {
	if q.reports == nil {
		return Series{}, platform.Errorf(platform.KindUnavailable, "reports are not served by this node")
	}
	f, err := q.parseReportFilter(args, acct.AppID)
	if err != nil {
		return Series{}, err
	}
	spec, loc, err := parseSeriesSpec(args)
	if err != nil {
		return Series{}, err
	}
	release, err := q.gate.Acquire(ctx, f.AppID)
	if err != nil {
		return Series{}, err
	}
	rows, err := q.reports.Series(ctx, f, spec)
	release()
	if err != nil {
		q.log.Error("timeseries", "err", err)
		return Series{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "reports are unavailable; retry later", Err: err}
	}
	return Series{From: schema.WireTime(f.From), To: schema.WireTime(f.To), Interval: spec.Interval,
		GroupBy: spec.GroupBy, TZ: spec.TZ, Buckets: buildBuckets(f.From, f.To, spec.Interval, loc, rows)}, nil
}

// bucketStart is the start of the bucket holding t, as ClickHouse's
// toStartOfHour / toDate / toMonday / toStartOfMonth in the zone see it.
func bucketStart(t time.Time, interval string, loc *time.Location) time.Time {
	l := t.In(loc)
	switch interval {
	case "hour":
		return t.Add(-time.Duration(l.Minute())*time.Minute - time.Duration(l.Second())*time.Second - time.Duration(l.Nanosecond()))
	case "day":
		return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	case "week":
		return time.Date(l.Year(), l.Month(), l.Day()-(int(l.Weekday())+6)%7, 0, 0, 0, 0, loc)
	}
	return time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc)
}

// nextBucket is the start of the bucket after the one starting at b.
func nextBucket(b time.Time, interval string, loc *time.Location) time.Time {
	l := b.In(loc)
	switch interval {
	case "hour":
		return bucketStart(b.Add(time.Hour), interval, loc)
	case "day":
		return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc)
	case "week":
		return time.Date(l.Year(), l.Month(), l.Day()+7, 0, 0, 0, 0, loc)
	}
	return time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, loc)
}

// bucketKey names a bucket as the SQL does: the Unix time of an hour's
// start, the local date of a day's, week's or month's.
func bucketKey(b time.Time, interval string, loc *time.Location) string {
	if interval == "hour" {
		return strconv.FormatInt(b.Unix(), 10)
	}
	return b.In(loc).Format("2006-01-02")
}

// buildBuckets lays every bucket from the one holding from up to to, empty
// ones included, and fills in the rows.
func buildBuckets(from, to time.Time, interval string, loc *time.Location, rows []SeriesRow) []SeriesBucket {
	type cell struct {
		g     *SeriesGroup
		sums  map[string]int64
		index int
	}
	byBucket := map[string]map[string]*cell{}
	for _, r := range rows {
		groups := byBucket[r.Bucket]
		if groups == nil {
			groups = map[string]*cell{}
			byBucket[r.Bucket] = groups
		}
		c := groups[r.Group]
		if c == nil {
			c = &cell{g: &SeriesGroup{Key: r.Group}, sums: map[string]int64{}}
			groups[r.Group] = c
		}
		c.g.Count += r.Count
		c.g.Paid += r.Paid
		c.sums[r.Currency] += r.PaidAmount
	}
	var out []SeriesBucket
	for b := bucketStart(from, interval, loc); b.Before(to); b = nextBucket(b, interval, loc) {
		next := nextBucket(b, interval, loc)
		sb := SeriesBucket{Start: schema.WireTime(b), End: schema.WireTime(next), Groups: []SeriesGroup{}}
		for _, c := range byBucket[bucketKey(b, interval, loc)] {
			c.g.PaidAmount = amounts(c.sums)
			sb.Groups = append(sb.Groups, *c.g)
		}
		sort.Slice(sb.Groups, func(i, j int) bool { return sb.Groups[i].Key < sb.Groups[j].Key })
		out = append(out, sb)
	}
	return out
}
