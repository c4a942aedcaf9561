package checkout

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	pages   *prometheus.CounterVec
	errors  *prometheus.CounterVec
	actions *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_checkout_pages_total", Help: "Payer pages rendered, by page.",
		}, []string{"page"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_checkout_errors_total", Help: "Payer pages that answered an error, by error kind.",
		}, []string{"kind"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_checkout_actions_total", Help: "Payer actions (choose, confirm, cancel, hash, login, pay), by result.",
		}, []string{"action", "result"}),
	}
	for _, c := range []prometheus.Collector{m.pages, m.errors, m.actions} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register checkout metrics: %w", err)
		}
	}
	return m, nil
}

// done counts an action's result: ok, or the error.
func (m *metrics) done(action string, err error) {
	res := "ok"
	if err != nil {
		res = "error"
	}
	m.actions.WithLabelValues(action, res).Inc()
}
