package dispatcher

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the dispatcher's series. No label carries an id, an appid or a
// URL: those are unbounded and belong in the attempt log.
type metrics struct {
	attempts  *prometheus.CounterVec // by outcome of the HTTP attempt
	attemptS  prometheus.Histogram   // one attempt, request to answer
	delivery  prometheus.Histogram   // paid to acknowledged
	retries   prometheus.Counter
	dead      prometheus.Counter
	inflight  prometheus.Gauge
	events    *prometheus.CounterVec // stream entries by what became of them
	redisErrs prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_webhook_attempts_total",
			Help: "Webhook attempts by outcome: success, not_acknowledged, http_status, timeout, network, refused, invalid_url, internal.",
		}, []string{"outcome"}),
		attemptS: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gateway_webhook_attempt_seconds",
			Help:    "Duration of one webhook attempt, from sending to the end of the answer or the failure.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		delivery: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gateway_webhook_delivery_seconds",
			Help:    "Time from an order becoming paid to its webhook being acknowledged, retries included.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600},
		}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_webhook_retries_scheduled_total",
			Help: "Failed webhook attempts that were scheduled to be retried.",
		}),
		dead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_webhook_dead_letters_total",
			Help: "Webhook deliveries dead-lettered after their last scheduled attempt failed.",
		}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_webhook_inflight",
			Help: "Webhook attempts in flight in this process.",
		}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_webhook_events_total",
			Help: "Order events the dispatcher consumed, by result: scheduled, duplicate, no_notify_url, ignored, invalid.",
		}, []string{"result"}),
		redisErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_webhook_redis_errors_total",
			Help: "Redis errors in the dispatcher; the work concerned is retried.",
		}),
	}
	for _, c := range []prometheus.Collector{m.attempts, m.attemptS, m.delivery, m.retries, m.dead, m.inflight, m.events, m.redisErrs} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register dispatcher metrics: %w", err)
		}
	}
	return m, nil
}
