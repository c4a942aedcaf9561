package main

import "fmt"

// targets judges the figures against the targets set for this machine
// (the BENCHMARKS.md targets table), each a pass or fail row.
func (r *report) targets() {
	add := func(name, target, got string, met bool) {
		r.Targets = append(r.Targets, targetCheck{Name: name, Target: target, Got: got, Met: met})
	}
	if c := r.Create; c != nil && c.Ratio > 0 {
		add("createorder vs ceiling", "≥ 70%", pct(c.Ratio), c.Ratio >= 0.70)
	}
	if c := r.Create; c != nil && c.Half != nil {
		add("createorder p99 at half load", "≤ 10 ms", msStr(c.Half.Latency.P99), c.Half.Latency.P99 <= 10 && c.Half.OK > 0)
	}
	if c := r.Channels; c != nil && c.Ratio > 0 {
		add("createorder with 5 channels vs 1", "≥ 95%", pct(c.Ratio), c.Ratio >= 0.95)
	}
	if o := r.Order; o != nil {
		add("action=order throughput", "≥ 20,000 req/s", rate(o.Max.Throughput), o.Max.Throughput >= 20000)
	}
	if s := r.Status; s != nil {
		add("status poll throughput", "≥ 20,000 req/s", rate(s.Max.Throughput), s.Max.Throughput >= 20000)
		if s.Half != nil {
			add("status poll p99 at half load", "≤ 10 ms", msStr(s.Half.Latency.P99), s.Half.Latency.P99 <= 10 && s.Half.OK > 0)
		}
	}
	if pg := r.Page; pg != nil {
		add("payment page throughput", "≥ 5,000 pages/s", rate(pg.Max.Throughput), pg.Max.Throughput >= 5000)
	}
	if l := r.List; l != nil && l.Half != nil {
		add("action=orders page 1 p99", "≤ 50 ms", msStr(l.Half.Latency.P99), l.Half.Latency.P99 <= 50 && l.Half.OK > 0)
	}
	if l := r.ListDeep; l != nil && l.Half != nil {
		add(fmt.Sprintf("action=orders page %v p99", r.Sizes["deep_page"]), "≤ 200 ms", msStr(l.Half.Latency.P99),
			l.Half.Latency.P99 <= 200 && l.Half.OK > 0)
	}
	if l := r.ListPaid; l != nil && l.Half != nil {
		add("action=orders status=paid page 1 p99", "≤ 50 ms", msStr(l.Half.Latency.P99), l.Half.Latency.P99 <= 50 && l.Half.OK > 0)
	}
	for _, q := range []struct {
		name   string
		pr     *pair
		target float64
	}{{"action=orders paymentMethod+currency page 1 p99", r.ListMethod, 50}, {"action=summary 90 days p99", r.Summary, 100},
		{"action=timeseries day x method 90 days p99", r.Series, 150}} {
		if q.pr != nil && q.pr.Half != nil {
			add(q.name, fmt.Sprintf("≤ %.0f ms", q.target), msStr(q.pr.Half.Latency.P99), q.pr.Half.Latency.P99 <= q.target && q.pr.Half.OK > 0)
		}
	}
	if x := r.Export; x != nil {
		add("export rows/s", "≥ 200,000 rows/s", rate(x.RowsPerSec), x.RowsPerSec >= 200_000)
		add("export gateway RSS growth", "≤ 64 MiB", fmt.Sprintf("%.1f MiB", x.RSSGrowthMiB), x.RSSGrowthMiB <= 64)
	}
	if c := r.Console; c != nil {
		for _, q := range []struct {
			name string
			pr   *pair
		}{{"console orders page p99", c.Orders}, {"console overview 30 days p99", c.Overview}} {
			if q.pr != nil && q.pr.Half != nil {
				add(q.name, "≤ 300 ms", msStr(q.pr.Half.Latency.P99), q.pr.Half.Latency.P99 <= 300 && q.pr.Half.OK > 0)
			}
		}
	}
	if f := r.FairShare; f != nil {
		add("fair share: another merchant's page 1 p99 under a flood", "≤ 2× quiet", fmt.Sprintf("%.1f×", f.Ratio),
			f.Ratio > 0 && f.Ratio <= 2 && f.Flooded.Failed == 0)
	}
	if d := r.Delay; d != nil {
		add("create-to-listed p99", "≤ 1 s", msStr(d.Delay.P99), d.Delay.P99 <= 1000 && d.Missing == 0 && d.Delay.Count > 0)
	}
	if c := r.CatchUp; c != nil {
		add("projector catch-up", "≥ 50,000 events/s", rate(c.PerSec), c.PerSec >= 50000)
	}
	if h := r.Hooks; h != nil && h.Skipped == "" {
		best := max(h.BacklogPerS, h.SteadyPerS)
		add("webhook deliveries", "≥ 5,000 /s", rate(best), best >= 5000)
	}
	if e := r.Events; e != nil && e.Got > 0 {
		add(eventsTarget, "≥ 10,000 /s", rate(e.PerS), e.PerS >= 10000 && e.Got == e.Deliveries)
	}
	if m := r.Memory; m.RedisOrderBytes > 0 {
		add("Redis per live order", "≤ 1 KiB", fmt.Sprintf("%.0f B", m.RedisOrderBytes), m.RedisOrderBytes <= 1024)
	}
	if m := r.Memory; m.RedisLivePerOrder > 0 {
		add("Redis bytes per live order", "≤ 400 B", fmt.Sprintf("%.0f B", m.RedisLivePerOrder), m.RedisLivePerOrder <= 400)
	}
	if gw, rd, ok := r.phaseCPU("createorder max").serverAndRedis(); ok {
		add("CPU µs per create", "≤ 45 µs", fmt.Sprintf("%.1f µs", gw+rd), gw+rd <= 45)
	}
}
