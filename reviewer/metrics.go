package reviewer

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric outcomes of one review: the order approved, rejected, handed to
// an administrator, or to be checked again later.
const (
	outApproved = "approved"
	outRejected = "rejected"
	outWaiting  = "waiting"
	outRetry    = "retry"
)

// Backends named in gateway_usdt_review_errors_total.
const (
	backendChain    = "chain"
	backendExchange = "exchange"
	backendOrders   = "orders"
	backendRedis    = "redis"
)

// metrics are the reviewer's series. No label carries an order id or a hash.
type metrics struct {
	reviews *prometheus.CounterVec   // by mode, outcome
	latency *prometheus.HistogramVec // submit to decision, by mode
	waiting prometheus.Gauge         // nil without Deps.Waiting
	errors  *prometheus.CounterVec   // by backend
}

func newMetrics(reg prometheus.Registerer, withWaiting bool) (*metrics, error) {
	m := &metrics{
		reviews: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_usdt_reviews_total",
			Help: "USDT reviews by network mode and outcome: approved, rejected, waiting (handed to an administrator), retry (checked again later).",
		}, []string{"mode", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gateway_usdt_review_seconds",
			Help:    "Time from a transaction hash's submission to the review's decision (approved, rejected or handed to an administrator).",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600},
		}, []string{"mode"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_usdt_review_errors_total",
			Help: "Failed calls of the USDT reviewers by backend: chain, exchange, orders, redis. The review concerned is retried.",
		}, []string{"backend"}),
	}
	cs := []prometheus.Collector{m.reviews, m.latency, m.errors}
	if withWaiting {
		m.waiting = prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_usdt_reviews_waiting",
			Help: "usdt_direct orders whose review waits for an administrator.",
		})
		cs = append(cs, m.waiting)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register reviewer metrics: %w", err)
		}
	}
	return m, nil
}
