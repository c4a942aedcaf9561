package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/paygate/gateway/bench/loadgen"
)

// cpuPerRow is the "CPU µs per …" row of a phase: the servers' and Redis's
// CPU time over the phase divided by the requests it answered.
func (r *report) cpuPerRow(p func(string, ...any), scenario, what, phase, target string) {
	gw, rd, ok := r.phaseCPU(phase).serverAndRedis()
	if !ok {
		return
	}
	p("| %s | %s, over the %s phase (%s answered) | %.1f / %.1f = %.1f µs | %s |", scenario, what, phase,
		groupDigits(int64(r.answered(phase))), gw, rd, gw+rd, r.mark(target))
}

// markdown prints the report's table, as BENCHMARKS.md keeps it.
func (r *report) markdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("## gwbench %s — %s", r.Label, r.Started.Format("2006-01-02 15:04 UTC"))
	p("")
	if r.Command != "" {
		p("Command: `%s`.", r.Command)
	}
	p("Machine: %d CPUs, load average before %s, after %s; kernel %s; %s.", r.Machine.NumCPU, r.Machine.LoadBefore,
		r.Machine.LoadAfter, r.Machine.Kernel, r.Machine.GoVersion)
	if len(r.Machine.Others) > 0 {
		var others []string
		for _, o := range r.Machine.Others {
			others = append(others, fmt.Sprintf("%s (pid %d) %.2f", o.Name, o.PID, o.Cores))
		}
		p("Busiest other processes before the run (cores): %s.", strings.Join(others, ", "))
	}
	p("")
	p("| scenario | measure | result | target |")
	p("|---|---|---|---|")
	if c := r.Ceiling; c != nil {
		p("| ceiling: fiber + 1 EVALSHA (HSET + XADD) | max throughput, c=%d | %s | |", c.Max.Concurrency, rate(c.Max.Throughput))
		if c.Half != nil {
			p("| ceiling | latency at %s (50%%) p50 / p99 / p99.9 | %s | |", rate(c.Half.Rate), lat3(c.Half))
		}
	}
	r.cpuPerRow(p, "ceiling", "CPU µs per request (server / Redis)", "ceiling max", "")
	for _, c := range r.CeilingMore {
		what := fmt.Sprintf("ceiling with %d sequential EVALSHAs per request", c.Writes)
		switch {
		case c.Lanes > 0:
			what = fmt.Sprintf("ceiling batched: the EVALSHAs of concurrent requests in shared pipelines, %d in flight", c.Lanes)
		case c.Writes == 0:
			what = "ceiling without Redis (fiber alone, the same answer)"
		}
		p("| %s | max throughput, c=%d | %s | |", what, c.Max.Concurrency, rate(c.Max.Throughput))
		r.cpuPerRow(p, what, "CPU µs per request (server / Redis)", ceilingPhase(c.Writes, c.Lanes)+" max", "")
	}
	if c := r.Create; c != nil {
		p("| createorder (%s %s: no provider call, as the ceiling) | max throughput, c=%d | %s%s | %s |", ownCreate.method, ownCreate.currency, c.Max.Concurrency, rate(c.Max.Throughput), ratioStr(c.Ratio), r.mark("createorder vs ceiling"))
		r.cpuPerRow(p, "createorder", "CPU µs per create (gateway / Redis)", "createorder max", "CPU µs per create")
		if c.Half != nil {
			p("| createorder | latency at %s (50%%) p50 / p99 / p99.9 | %s | %s |", rate(c.Half.Rate), lat3(c.Half), r.mark("createorder p99 at half load"))
		}
		for _, pc := range c.Providers {
			p("| createorder with a provider (%s %s, sandbox simulator) | max throughput, c=%d (p99 there) | %s (%s) | |",
				pc.Method, pc.Currency, pc.Max.Concurrency, rate(pc.Max.Throughput), msStr(pc.Max.Latency.P99))
			r.cpuPerRow(p, "createorder with a provider ("+pc.Method+")", "CPU µs per create (gateway / Redis)", "createorder "+pc.Method+" max", "")
		}
	}
	if c := r.Channels; c != nil {
		c.markdown(r, p)
	}
	r.pairRows(p, "action=order", r.Order, "action=order throughput", "")
	r.pairRows(p, "GET /payment/{id}/status (Redis: 1 HMGET of 2 fields)", r.Status, "status poll throughput", "status poll p99 at half load")
	if s := r.StatusPerIP; s != nil {
		p("| GET /payment/{id}/status, each request from its own client address (Redis: 1 HMGET + 1 EVALSHA of the rate-limit script, a write) | max throughput, c=%d (p99 there) | %s (%s) | |",
			s.Concurrency, rate(s.Throughput), msStr(s.Latency.P99))
	}
	r.pairRows(p, "GET /payment/{id}, select page (Redis: 1 HGETALL)", r.Page, "payment page throughput", "")
	r.pairRows(p, "action=orders page 1", r.List, "", "action=orders page 1 p99")
	if r.ListDeep != nil {
		r.pairRows(p, fmt.Sprintf("action=orders page %v", r.Sizes["deep_page"]), r.ListDeep, "", fmt.Sprintf("action=orders page %v p99", r.Sizes["deep_page"]))
	}
	if r.ListPaid != nil {
		r.pairRows(p, "action=orders status=paid page 1 (total from the per-status counters)", r.ListPaid, "", "action=orders status=paid page 1 p99")
	}
	r.pairRows(p, "action=orders paymentMethod=wallet_a&currency=USD page 1", r.ListMethod, "", "action=orders paymentMethod+currency page 1 p99")
	r.pairRows(p, "action=summary, 90 days", r.Summary, "", "action=summary 90 days p99")
	r.pairRows(p, "action=timeseries interval=day groupBy=paymentMethod, 90 days", r.Series, "", "action=timeseries day x method 90 days p99")
	if x := r.Export; x != nil {
		p("| action=export, the merchant's %s orders | rows/s; gateway RSS growth | %s; %.1f MiB | %s |", groupDigits(int64(x.Rows)), rate(x.RowsPerSec), x.RSSGrowthMiB, r.mark("export rows/s"))
	}
	r.consoleRows(p)
	if f := r.FairShare; f != nil {
		p("| fair share: another merchant's action=orders page 1 at %d/s, quiet / under the listing merchant's flood (c=%d: %s answered, %d of them refused) | p50 / p99 | %s / %s; %s / %s (%.1f×) | %s |",
			fairShareRate, f.Flood.Concurrency, rate(f.Flood.Throughput), f.Refused, msStr(f.Quiet.Latency.P50), msStr(f.Quiet.Latency.P99),
			msStr(f.Flooded.Latency.P50), msStr(f.Flooded.Latency.P99), f.Ratio, r.mark("fair share: another merchant's page 1 p99 under a flood"))
	}
	if d := r.Delay; d != nil {
		// Served and the creates' own p99 show whether the rate was steady:
		// with every role on the same cores, 50% of the command-only max
		// can be more than the gateway serves, and then creates queue.
		p("| projector | create-to-listed at %s creates (half the create max, or less when every role cannot hold that) p50 / p99 / max | %s / %s / %s (%d never listed; poll %s; served %s, create p99 %s) | %s |",
			rate(d.Rate), msStr(d.Delay.P50), msStr(d.Delay.P99), msStr(d.Delay.Max), d.Missing, d.PollEvry,
			rate(d.Creates.Throughput), msStr(d.Creates.Latency.P99), r.mark("create-to-listed p99"))
	}
	if c := r.CatchUp; c != nil {
		p("| projector | catch-up: %d queued events | %s in %.1f s (%.0f inserts of %.0f rows, %.0f ms each: %.0f%% of the time) | %s |",
			c.Events, rate(c.PerSec), c.Seconds, c.Inserts, c.MeanBatch, c.MeanInsertMs, 100*c.InsertShare, r.mark("projector catch-up"))
	}
	if h := r.Hooks; h != nil {
		if h.Skipped != "" {
			p("| dispatcher | deliveries/s, paid-to-delivered | skipped: %s | |", h.Skipped)
		} else {
			if h.Backlog > 0 {
				p("| dispatcher | deliveries/s draining %d queued paid orders, %d receiver ports | %s (%d delivered; mean POST %.1f ms) | %s |",
					h.Backlog, h.Ports, rate(h.BacklogPerS), h.BacklogGot, h.MeanAttemptMs, r.mark("webhook deliveries"))
			}
			p("| dispatcher | paid-to-delivered at %s pays p50 / p99 / max | %s / %s / %s (%d delivered, %s) | |",
				rate(h.SteadyRate), msStr(h.Delay.P50), msStr(h.Delay.P99), msStr(h.Delay.Max), h.Delivered, rate(h.SteadyPerS))
		}
	}
	r.eventsRow(p)
	if c := r.Cluster; c != nil && c.One.OK > 0 {
		p("| createorder on Redis Cluster (3 masters + 3 replicas, AOF always, WAIT 1 replica) | max throughput, 1 gateway (command role), c=%d; p99 | %s; %s | |",
			c.One.Concurrency, rate(c.One.Throughput), msStr(c.One.Latency.P99))
		if len(c.Two) == 2 {
			p("| createorder on Redis Cluster | max throughput, 2 gateways, c=%d each; p99 of each | %s; %s / %s | |",
				c.Two[0].Concurrency, rate(c.Sum), msStr(c.Two[0].Latency.P99), msStr(c.Two[1].Latency.P99))
		}
	}
	m := r.Memory
	if m.GatewayRSSMiB > 0 {
		p("| memory | gateway RSS peak under createorder load (all roles) | %.0f MiB (%.0f MiB) | |", m.GatewayRSSMiB, m.GatewayRSSAllMiB)
	}
	if m.RedisOrderBytes > 0 {
		p("| memory | Redis per live order: hash + clientOrderId key + expiry index entry (hash alone; index entry) | %.0f B (%.0f B; %.0f B) | %s |",
			m.RedisOrderBytes, m.RedisHashBytes, m.RedisIndexBytes, r.mark("Redis per live order"))
		p("| memory | Redis per event in the stream until trimmed; used_memory growth per create | %.0f B; %.0f B | |", m.RedisStreamBytes, m.RedisUsedPerOrder)
	}
	if m.RedisLivePerOrder > 0 {
		p("| memory | Redis bytes per live order: INFO used_memory growth over the createorder phases less the event streams' growth, per create (%s creates) | %.0f B | %s |",
			groupDigits(int64(m.RedisCreates)), m.RedisLivePerOrder, r.mark("Redis bytes per live order"))
	}
	if m.CHBytesPerRow > 0 {
		p("| memory | ClickHouse bytes on disk per stored row (%d rows) | %.0f B | |", m.CHRows, m.CHBytesPerRow)
	}
	p("")
	r.cpuTable(p)
	r.breakdownTables(p)
	phases := slices.Sorted(maps.Keys(r.Profiles))
	for _, ph := range phases {
		p("")
		p("perf of the gateway during %s (self time):", ph)
		p("")
		p("```")
		for _, l := range r.Profiles[ph] {
			p("%s", l)
		}
		p("```")
	}
	for k, v := range r.Errors {
		p("")
		p("**%s failed**: %s", k, v)
	}
	if len(r.Notes) > 0 {
		p("")
		for _, n := range r.Notes {
			p("- %s", n)
		}
	}
}

func (r *report) pairRows(p func(string, ...any), name string, pr *pair, maxTarget, halfTarget string) {
	if pr == nil {
		return
	}
	p("| %s | max throughput, c=%d (p99 there) | %s (%s) | %s |", name, pr.Max.Concurrency, rate(pr.Max.Throughput), msStr(pr.Max.Latency.P99), r.mark(maxTarget))
	if pr.Half != nil {
		p("| %s | latency at %s (50%%) p50 / p99 / p99.9 | %s | %s |", name, rate(pr.Half.Rate), lat3(pr.Half), r.mark(halfTarget))
	}
}

func (r *report) cpuTable(p func(string, ...any)) {
	var names []string
	for _, c := range r.CPU {
		for n := range c.Shares.Ours {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	p("CPU by phase, in cores of %d (others: processes not in this run):", r.Machine.NumCPU)
	p("")
	p("| phase | busy | %s | others | AOF rewrites | longest Redis fsync / AOF write (ms) | Redis µs per call of its busiest commands | CPU µs per answered request (servers / Redis) |", strings.Join(names, " | "))
	p("|---|---|%s---|---|---|---|---|", strings.Repeat("---|", len(names)))
	for _, c := range r.CPU {
		cells := make([]string, len(names))
		for i, n := range names {
			if v, ok := c.Shares.Ours[n]; ok {
				cells[i] = fmt.Sprintf("%.2f", v)
			}
		}
		var cmds []string
		for _, n := range slices.Sorted(maps.Keys(c.RedisCommands)) {
			if st := c.RedisCommands[n]; st.Calls >= 100 {
				// "xinfo|groups": a bare | would split the table cell.
				cmds = append(cmds, fmt.Sprintf("%s %.1f", strings.ReplaceAll(n, "|", " "), st.Per))
			}
		}
		others := fmt.Sprintf("%.2f", c.Shares.Others)
		if c.Shares.Others >= 0.1 && len(c.Others) > 0 {
			others += fmt.Sprintf(" (%s %.2f)", c.Others[0].Name, c.Others[0].Cores)
		}
		per := ""
		if srv, rd, ok := c.serverAndRedis(); ok {
			per = fmt.Sprintf("%.1f / %.1f", srv, rd)
			if strings.Contains(c.Phase, "cluster") {
				// The redis column is the single server, not the cluster's.
				per = fmt.Sprintf("%.1f / —", srv)
			}
		}
		p("| %s | %.2f | %s | %s | %d | %d / %d | %s | %s |", c.Phase, c.Shares.Busy, strings.Join(cells, " | "), others, c.AOFRewrites,
			c.RedisStallsMs["aof-fsync-always"], c.RedisStallsMs["aof-write"], strings.Join(cmds, ", "), per)
	}
}

// mark is the verdict cell of a target row.
func (r *report) mark(name string) string {
	for _, t := range r.Targets {
		if t.Name == name {
			if t.Met {
				return t.Target + " — met"
			}
			return t.Target + " — **missed**"
		}
	}
	return ""
}

func lat3(r *loadgen.Result) string {
	s := fmt.Sprintf("%s / %s / %s", msStr(r.Latency.P50), msStr(r.Latency.P99), msStr(r.Latency.P999))
	if r.SendLag != nil {
		// Part of each latency is the generator's own lateness on the
		// shared cores; it counts (coordinated omission), but shows here.
		s += fmt.Sprintf(" (generator send lag p99 %s)", msStr(r.SendLag.P99))
	}
	if r.Failed > 0 || r.Unsent > 0 {
		s += fmt.Sprintf(" (%d failed, %d unsent)", r.Failed, r.Unsent)
	}
	return s
}

func msStr(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

func rate(v float64) string { return groupDigits(int64(v+0.5)) + "/s" }

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

func ratioStr(v float64) string {
	if v <= 0 {
		return ""
	}
	return " = " + pct(v) + " of the ceiling"
}

// groupDigits writes 12345 as 12,345.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// consoleRows are the merchant console's rows: its pages at half load and
// the live page's A/B on the create path.
func (r *report) consoleRows(p func(string, ...any)) {
	c := r.Console
	if c == nil {
		return
	}
	for _, pg := range []struct {
		name, target string
		pr           *pair
	}{{"console: GET /console/orders, page 1 of the listing merchant (logged in)", "console orders page p99", c.Orders},
		{"console: GET /console/?range=30d, the overview (logged in)", "console overview 30 days p99", c.Overview}} {
		if pg.pr == nil {
			continue
		}
		p("| %s | max throughput, c=%d | %s | |", pg.name, pg.pr.Max.Concurrency, rate(pg.pr.Max.Throughput))
		if pg.pr.Half != nil {
			p("| %s | latency at %s (50%%) p50 / p99 / p99.9 | %s | %s |", pg.name, rate(pg.pr.Half.Rate), lat3(pg.pr.Half), r.mark(pg.target))
		}
	}
	if c.CreateB.OK > 0 {
		p("| console live page A/B: createorder max, c=%d, with 0 / %d / 0 open live feeds of the creating merchant | throughput (p99) | %s (%s) / %s (%s) / %s (%s); %d events reached the feeds | no measurable cost |",
			c.CreateB.Concurrency, c.Consoles, rate(c.CreateA.Throughput), msStr(c.CreateA.Latency.P99),
			rate(c.CreateB.Throughput), msStr(c.CreateB.Latency.P99), rate(c.CreateA2.Throughput), msStr(c.CreateA2.Latency.P99), c.Events)
	}
}
