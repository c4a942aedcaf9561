package fanout

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Results of an entry, the label of gateway_events_fanout_entries_total.
const (
	resultNone         = "none"         // it means no event of the catalogue
	resultUnsubscribed = "unsubscribed" // its merchant has no endpoint that takes it
	resultScheduled    = "scheduled"    // its events were handed to the engine
	resultInvalid      = "invalid"      // it cannot be read; acknowledged, logged
	resultRetry        = "retry"        // left pending: read again after ClaimIdle
)

type metrics struct {
	entries   *prometheus.CounterVec
	scheduled *prometheus.CounterVec
	redisErrs prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		entries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_events_fanout_entries_total",
			Help: "Stream entries the events fan-out handled, by result (none, unsubscribed, scheduled, invalid, retry)."}, []string{"result"}),
		scheduled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_events_fanout_scheduled_total",
			Help: "Catalogue events handed to the webhook engine for at least one endpoint, by type."}, []string{"type"}),
		redisErrs: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_events_fanout_redis_errors_total",
			Help: "Redis errors of the events fan-out; each is retried."}),
	}
	for _, c := range []prometheus.Collector{m.entries, m.scheduled, m.redisErrs} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register events fan-out metrics: %w", err)
		}
	}
	return m, nil
}
