package checkout

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	pages   *prometheus.CounterVec
	errors  *prometheus.CounterVec
	actions *prometheus.CounterVec
	hidden  *prometheus.CounterVec
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
		hidden: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_checkout_options_hidden_total",
			Help: "Options a payer page left out for an operator's reason (fiatpsp: a system with no exchange rate), by method and reason.",
		}, []string{"method", "reason"}),
	}
	for _, c := range []prometheus.Collector{m.pages, m.errors, m.actions, m.hidden} {
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
