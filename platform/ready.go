package platform

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Check is one dependency readiness asks about.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// DependencyCollector reports each dependency's readiness check at scrape
// time as gateway_dependency_up, so dashboards and alerts see what /readyz
// sees without a probe of their own.
type DependencyCollector struct {
	checks []Check
	desc   *prometheus.Desc
}

// NewDependencyCollector describes the gauge.
func NewDependencyCollector(checks ...Check) *DependencyCollector {
	return &DependencyCollector{checks: checks, desc: prometheus.NewDesc("gateway_dependency_up",
		"1 when the dependency answered its readiness check at scrape time, else 0.", []string{"dependency"}, nil)}
}

// Describe implements prometheus.Collector.
func (d *DependencyCollector) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

// Collect runs the checks.
func (d *DependencyCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, c := range d.checks {
		up := 1.0
		if c.Ping(ctx) != nil {
			up = 0
		}
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.GaugeValue, up, c.Name)
	}
}
