package query

import (
	"encoding/json"
	"net/url"
	"sort"
	"time"

	"github.com/paygate/gateway/schema"
)

// checkSeries checks a time series: its buckets tile the range, each
// starts on the zone's hour, midnight, Monday or first of the month, and
// each holds, per group, the count, paid count and paid amounts computed
// here from Redis' orders created in it.
func (r *reporter) checkSeries(rg [2]string, params string) {
	t := r.t
	t.Helper()
	status, raw := r.get("action=timeseries&from="+rg[0]+"&to="+rg[1]+"&"+params, false)
	var got struct {
		Data Series `json:"data"`
	}
	if status != 200 || json.Unmarshal(raw, &got) != nil {
		t.Fatalf("timeseries %v %s: %d %s", rg, params, status, raw)
	}
	q, _ := url.ParseQuery(params)
	tz := q.Get("tz")
	if tz == "" {
		tz = "UTC"
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := time.Parse(time.RFC3339Nano, rg[0])
	to, _ := time.Parse(time.RFC3339Nano, rg[1])
	filter := ""
	for _, k := range []string{"paymentMethod", "currency", "status"} {
		if v := q.Get(k); v != "" {
			filter += "&" + k + "=" + v
		}
	}
	orders := r.selected(rg, filter)
	counted := 0
	bs := got.Data.Buckets
	if len(bs) == 0 {
		t.Fatalf("timeseries %s: no buckets", params)
	}
	for i, b := range bs {
		start, _ := time.Parse(time.RFC3339, b.Start)
		end, _ := time.Parse(time.RFC3339, b.End)
		switch {
		case i == 0 && (start.After(from) || !end.After(from)):
			t.Fatalf("timeseries %s: first bucket %s..%s does not hold from %s", params, b.Start, b.End, rg[0])
		case i > 0 && b.Start != bs[i-1].End:
			t.Fatalf("timeseries %s: bucket %d starts %s, the previous ended %s", params, i, b.Start, bs[i-1].End)
		case i == len(bs)-1 && (!start.Before(to) || end.Before(to)):
			t.Fatalf("timeseries %s: last bucket %s..%s does not end the range at %s", params, b.Start, b.End, rg[1])
		}
		if !onBoundary(start, q.Get("interval"), loc) || !onBoundary(end, q.Get("interval"), loc) {
			t.Fatalf("timeseries %s: bucket %s..%s is not on %s boundaries in %s", params, b.Start, b.End, q.Get("interval"), tz)
		}
		want := map[string]*SeriesGroup{}
		sums := map[string]map[string]int64{}
		for _, o := range orders {
			if o.CreatedAt.Before(start) || !o.CreatedAt.Before(end) {
				continue
			}
			key := map[string]string{"status": o.Status.String(), "paymentMethod": string(o.Method), "currency": o.Currency}[q.Get("groupBy")]
			g := want[key]
			if g == nil {
				g = &SeriesGroup{Key: key}
				want[key], sums[key] = g, map[string]int64{}
			}
			g.Count++
			if o.Status == schema.StatusPaid {
				g.Paid++
				sums[key][o.Currency] += int64(o.Amount)
			}
		}
		wantGroups := []SeriesGroup{}
		for k, g := range want {
			g.PaidAmount = amounts(sums[k])
			wantGroups = append(wantGroups, *g)
			counted += g.Count
		}
		sort.Slice(wantGroups, func(i, j int) bool { return wantGroups[i].Key < wantGroups[j].Key })
		a, _ := json.Marshal(b.Groups)
		w, _ := json.Marshal(wantGroups)
		if string(a) != string(w) {
			t.Fatalf("merchant %s timeseries %s bucket %s\n got %s\nwant %s", r.acct.AppID, params, b.Start, a, w)
		}
	}
	if counted != len(orders) {
		t.Fatalf("timeseries %s: buckets hold %d orders, %d were created in the range", params, counted, len(orders))
	}
}

// onBoundary reports whether t starts an hour, day, week (Monday) or month
// on the clock of loc.
func onBoundary(t time.Time, interval string, loc *time.Location) bool {
	l := t.In(loc)
	if l.Minute() != 0 || l.Second() != 0 {
		return false
	}
	switch interval {
	case "hour":
		return true
	case "day":
		return l.Hour() == 0
	case "week":
		return l.Hour() == 0 && l.Weekday() == time.Monday
	}
	return l.Hour() == 0 && l.Day() == 1
}
