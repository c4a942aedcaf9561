package main

import (
	"strconv"
	"strings"
)

// breakdownTables prints the create's CPU accounted (with --breakdown).
func (r *report) breakdownTables(p func(string, ...any)) {
	bd := r.Breakdown
	if bd == nil {
		return
	}
	rb := bd.Redis
	p("")
	p("Redis CPU per create, by command (createorder max, %d creates; which commands scripts run: MONITOR of %d more creates):", rb.Creates, rb.Sampled)
	p("")
	p("| command | sent by | calls per create | µs per call | µs per create |")
	p("|---|---|---|---|---|")
	for _, c := range rb.Commands {
		by := "the gateway"
		switch {
		case c.FromScripts >= 0.995:
			by = "scripts (inside their time)"
		case c.FromScripts > 0.005:
			by = "both"
		}
		p("| %s | %s | %.2f | %.2f | %.2f |", c.Name, by, c.CallsPerCreate, c.UsPerCall, c.UsPerCreate)
	}
	top := rb.topLevelUs()
	p("| **in commands the clients sent** | | | | **%.2f** |", top)
	p("| **outside any command** (reading and parsing requests, replies, AOF write and fsync, the event loop, expiry) | | | | **%.2f** |", rb.CPUPerCreate-top)
	p("| **Redis process CPU** | | | | **%.2f** |", rb.CPUPerCreate)
	p("")
	p("Redis's socket reads per create %.3f and writes %.3f (INFO stats): a pipeline of %.1f creates on average.", rb.ReadsPerCreate, rb.WritesPerCreate, safeInv(rb.ReadsPerCreate))
	if len(rb.Scripts) > 0 {
		var s []string
		for _, sc := range rb.Scripts {
			s = append(s, sc.Script+" ×"+fmtFloat(sc.CallsPerCreate))
		}
		p("")
		p("Scripts per create (EVALSHA, by the SHA1 of the repository's .lua files): %s.", strings.Join(s, ", "))
	}
	shareTable(p, "Redis's work", bd.RedisParts, "Redis CPU per create by what it was doing (perf of Redis in the phase under perf, %.1f µs per create; a sample in the kernel by the system call its chain reaches, else by its function):", bd.RedisUsPerCreate)
	shareTable(p, "component", bd.Gateway, "Gateway CPU per create by component (perf of the createorder phase under perf, %.1f µs per create; each sample to the first component its stack names, leaf first):", bd.GatewayUsPerCreate)
}

// shareTable prints shares under their title, when there are any.
func shareTable(p func(string, ...any), column string, shares []componentShare, title string, usPerCreate float64) {
	if len(shares) == 0 {
		return
	}
	p("")
	p(title, usPerCreate)
	p("")
	p("| %s | share of samples | µs per create |", column)
	p("|---|---|---|")
	for _, c := range shares {
		p("| %s | %.1f %% | %.1f |", c.Name, c.Share, c.UsPerCreate)
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func safeInv(f float64) float64 {
	if f == 0 {
		return 0
	}
	return 1 / f
}
