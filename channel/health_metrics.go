package channel

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/schema"
)

// healthMetrics are the per-channel metrics. Their channel label is a
// Ref.String() of a configured channel, so the series are bounded by
// GATEWAY_CHANNELS_MAX per method.
type healthMetrics struct {
	inits    *prometheus.CounterVec
	failures *prometheus.CounterVec
}

var (
	breakerStateDesc = prometheus.NewDesc("gateway_channel_breaker_state",
		"A channel's breaker: 0 closed, 1 half open, 2 open.", []string{"channel"}, nil)
	capUsedDesc = prometheus.NewDesc("gateway_channel_cap_used_ratio",
		"A capped channel's use of its daily cap today (its time zone's day), 0 to 1.", []string{"channel", "cap"}, nil)
)

func newHealthMetrics(h *Health, reg prometheus.Registerer) (*healthMetrics, error) {
	m := &healthMetrics{
		inits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_channel_initialisations_total",
			Help: "Initialisations tried on a channel, by result (ok, refused: the provider declined this payment, failed: the account did not serve it).",
		}, []string{"channel", "result"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_channel_failures_total",
			Help: "Failed initialisations on a channel, by reason (transport, timeout, http_5xx, keyword, refused).",
		}, []string{"channel", "reason"}),
	}
	for _, c := range []prometheus.Collector{m.inits, m.failures, &healthCollector{h: h}} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register channel metrics: %w", err)
		}
	}
	return m, nil
}

func (m *healthMetrics) observe(r Ref, o Outcome) {
	ch := r.String()
	switch {
	case o.OK:
		m.inits.WithLabelValues(ch, "ok").Inc()
		return
	case o.Reason == ReasonRefused:
		m.inits.WithLabelValues(ch, "refused").Inc()
	default:
		m.inits.WithLabelValues(ch, "failed").Inc()
	}
	reason := o.Reason
	switch reason {
	case ReasonTransport, ReasonTimeout, ReasonHTTP5xx, ReasonKeyword, ReasonRefused:
	default:
		reason = "other" // labels stay a known set whatever a caller passes
	}
	m.failures.WithLabelValues(ch, reason).Inc()
}

// healthCollector reads the breakers from the process's copy and the caps'
// use from Redis at scrape time: a scrape every 15 s costs one small
// pipeline per capped channel, the create path nothing.
type healthCollector struct{ h *Health }

func (c *healthCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- breakerStateDesc
	ch <- capUsedDesc
}

func (c *healthCollector) Collect(ch chan<- prometheus.Metric) {
	snap := c.h.dir.Now()
	for _, r := range c.h.refs(snap) {
		ch <- prometheus.MustNewConstMetric(breakerStateDesc, prometheus.GaugeValue, breakerValue(snap.BreakerOf(r)), r.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	caps, now := NewCaps(c.h.rdb), c.h.cfg.Now()
	for r, s := range snap.Settings {
		if !s.Capped() || !c.h.configured(r) {
			continue
		}
		u, err := caps.Used(ctx, r, s.Day(now))
		if err != nil {
			c.h.log.Warn("channel cap use not read for metrics", "channel", r.String(), "err", err)
			continue
		}
		if s.DailyCount > 0 {
			ch <- prometheus.MustNewConstMetric(capUsedDesc, prometheus.GaugeValue, float64(u.Count)/float64(s.DailyCount), r.String(), "count")
		}
		if s.DailyAmount > 0 {
			ch <- prometheus.MustNewConstMetric(capUsedDesc, prometheus.GaugeValue, float64(u.Amount)/float64(s.DailyAmount), r.String(), "amount")
		}
	}
}

func breakerValue(b Breaker) float64 {
	switch b.State {
	case HalfOpen:
		return 1
	case Open:
		return 2
	}
	return 0
}

// refs are the channels whose breaker state is exported: the configured
// ones (both modes) when known, else those with a stored breaker.
func (h *Health) refs(snap *Snapshot) []Ref {
	if h.cfg.Configured == nil {
		out := make([]Ref, 0, len(snap.Breakers))
		for r := range snap.Breakers {
			out = append(out, r)
		}
		return out
	}
	var out []Ref
	for _, m := range schema.AllMethods() {
		for _, sandbox := range []bool{false, true} {
			for _, id := range h.cfg.Configured.Channels(m, sandbox) {
				out = append(out, Ref{Sandbox: sandbox, Method: m, ID: id})
			}
		}
	}
	return out
}

func (h *Health) configured(r Ref) bool {
	if h.cfg.Configured == nil {
		return true
	}
	for _, id := range h.cfg.Configured.Channels(r.Method, r.Sandbox) {
		if id == r.ID {
			return true
		}
	}
	return false
}
