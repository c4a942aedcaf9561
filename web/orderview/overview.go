package orderview

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/frame"
)

// Overview is the overview page's data: one range's figures and charts.
type Overview struct {
	Range      string   // today, 7d, 30d
	Ranges     []string // the choices
	S          query.Summary
	Conversion string
	Orders     frame.Chart   // orders created per bucket
	Volume     []frame.Chart // paid volume per bucket, one chart per currency
	ByMethod   frame.Chart   // orders per method
	Methods    []query.MethodFigures
	Currencies []string
}

// span is a range's [from, to) and bucket size: today by hour, 7 and 30
// days by day, ending now (UTC).
func span(r string, now time.Time, loc *time.Location) (from, to time.Time, interval string, ok bool) {
	now = now.In(loc)
	to = now.Truncate(time.Second).Add(time.Second)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	switch r {
	case "today":
		return day, to, "hour", true
	case "7d":
		return day.AddDate(0, 0, -6), to, "day", true
	case "30d":
		return day.AddDate(0, 0, -29), to, "day", true
	}
	return time.Time{}, time.Time{}, "", false
}

// Overview is appid's overview over range rng (today, 7d, 30d; 7 days
// when unknown); l names the charts (chart_orders, chart_volume,
// chart_methods) and the methods in the reader's language; its days and
// hours are the viewer's (loc, the frame's View.Zone).
func (r *Reader) Overview(ctx context.Context, appid, rng string, l *frame.Catalog, loc *time.Location) (*Overview, error) {
	t := l.T
	if loc == nil {
		loc = time.UTC
	}
	ov := &Overview{Range: rng, Ranges: []string{"today", "7d", "30d"}}
	from, to, interval, ok := span(ov.Range, r.cfg.Now(), loc)
	if !ok {
		ov.Range = "7d"
		from, to, interval, _ = span(ov.Range, r.cfg.Now(), loc)
	}
	f := query.ReportFilter{AppID: appid, From: from.UTC(), To: to.UTC()}
	sum, buckets, err := r.reports(ctx, f, query.SeriesSpec{Interval: interval, GroupBy: "currency", TZ: loc.String()})
	if err != nil {
		return nil, err
	}
	ov.S, ov.Methods = sum, sum.ByMethod
	ov.Conversion = strconv.FormatFloat(sum.Conversion*100, 'f', 1, 64) + "%"
	ov.Currencies = slices.Sorted(maps.Keys(sum.PaidAmount))
	ov.Orders = frame.LineChart(t("chart_orders"), countPoints(buckets, interval, loc))
	for _, cur := range ov.Currencies {
		ov.Volume = append(ov.Volume, frame.BarChart(t("chart_volume", "Currency", cur), volumePoints(buckets, interval, cur, loc)))
	}
	var pts []frame.Point
	for _, m := range sum.ByMethod {
		pts = append(pts, frame.Point{Label: l.Method(m.PaymentMethod), Value: float64(m.Created), Text: strconv.Itoa(m.Created)})
	}
	ov.ByMethod = frame.BarChart(t("chart_methods"), pts)
	return ov, nil
}

// reports reads the summary and the series through the ClickHouse gate.
func (r *Reader) reports(ctx context.Context, f query.ReportFilter, spec query.SeriesSpec) (query.Summary, []query.SeriesBucket, error) {
	release, err := r.gate.Acquire(ctx, f.AppID)
	if err != nil {
		return query.Summary{}, nil, err
	}
	defer release()
	sum, err := r.reads.Reports.Summary(ctx, f)
	if err != nil {
		return sum, nil, unavailable(err)
	}
	rows, err := r.reads.Reports.Series(ctx, f, spec)
	if err != nil {
		return sum, nil, unavailable(err)
	}
	return sum, query.BuildSeries(f, spec, time.UTC, rows), nil
}

func bucketLabel(start, interval string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return start
	}
	t = t.In(loc)
	if interval == "hour" {
		return t.Format("15:04")
	}
	return t.Format("01-02")
}

func countPoints(buckets []query.SeriesBucket, interval string, loc *time.Location) []frame.Point {
	out := make([]frame.Point, 0, len(buckets))
	for _, b := range buckets {
		n := 0
		for _, g := range b.Groups {
			n += g.Count
		}
		out = append(out, frame.Point{Label: bucketLabel(b.Start, interval, loc), Value: float64(n), Text: strconv.Itoa(n)})
	}
	return out
}

func volumePoints(buckets []query.SeriesBucket, interval, cur string, loc *time.Location) []frame.Point {
	out := make([]frame.Point, 0, len(buckets))
	for _, b := range buckets {
		var text string
		var val float64
		for _, g := range b.Groups {
			if g.Key == cur {
				text = g.PaidAmount[cur]
				val, _ = strconv.ParseFloat(text, 64)
			}
		}
		if text == "" {
			text = "0"
		}
		out = append(out, frame.Point{Label: bucketLabel(b.Start, interval, loc), Value: val, Text: text + " " + cur})
	}
	return out
}
