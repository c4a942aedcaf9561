package platform

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// Drain is the first step of a graceful stop: readiness answers 503 so a
// load balancer stops sending, and every answer asks its client to close the
// connection, so keep-alive clients move before the listener closes.
type Drain struct {
	on atomic.Bool
}

// Start begins draining.
func (d *Drain) Start() { d.on.Store(true) }

// Middleware marks answers during the drain.
func (d *Drain) Middleware(c *fiber.Ctx) error {
	if d.on.Load() {
		c.Set(fiber.HeaderConnection, "close")
	}
	return c.Next()
}

// Check is one dependency readiness asks about.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Ready serves GET /readyz: 200 when every dependency of this process's
// roles answers within a second, else 503 naming the ones that did not.
// /healthz only says the process serves; a load balancer routes on this.
func Ready(drain *Drain, checks ...Check) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if drain != nil && drain.on.Load() {
			return Errorf(KindUnavailable, "not ready: shutting down")
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), time.Second)
		defer cancel()
		var failed []error
		for _, ch := range checks {
			if err := ch.Ping(ctx); err != nil {
				failed = append(failed, errors.New(ch.Name+": "+err.Error()))
			}
		}
		if len(failed) > 0 {
			return &Error{Kind: KindUnavailable, Msg: "not ready: " + errors.Join(failed...).Error()}
		}
		return c.SendString("ready")
	}
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
