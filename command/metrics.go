package command

import "github.com/prometheus/client_golang/prometheus"

// metrics are the command side's counters. Labels stay bounded: kinds,
// methods and currencies, never ids or appids.
type metrics struct {
	created    *prometheus.CounterVec
	replays    prometheus.Counter
	moves      *prometheus.CounterVec
	scriptTime *prometheus.HistogramVec
	transfers  *prometheus.CounterVec
	recoveries *prometheus.CounterVec
	idemKeys   *prometheus.CounterVec
	refunds    *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_orders_created_total", Help: "Orders created, by method, currency and sandbox or live.",
		}, []string{"method", "currency", "mode"}),
		replays: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_order_idempotent_replays_total", Help: "Creates answered with the live order holding their clientOrderId.",
		}),
		moves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_order_transitions_total", Help: "Order status changes, by target status.",
		}, []string{"to"}),
		scriptTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gateway_redis_script_duration_seconds", Help: "Latency of the order scripts.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25},
		}, []string{"script"}),
		transfers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_balance_transfers_total", Help: "Payer balance payments of orders, by result (paid or the error kind).",
		}, []string{"result"}),
		recoveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_balance_transfer_recoveries_total", Help: "Interrupted balance payments the recovery drove to an end, by outcome.",
		}, []string{"outcome"}),
		idemKeys: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_idempotency_keys_total",
			Help: "Calls with an Idempotency-Key, by outcome (stored, replayed, released, mismatch, in_progress, unstored).",
		}, []string{"outcome"}),
		refunds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_refunds_total", Help: "Refunds, by step reached (reserved, succeeded, failed, insufficient_balance, recovered).",
		}, []string{"outcome"}),
	}
	for _, c := range []prometheus.Collector{m.created, m.replays, m.moves, m.scriptTime, m.transfers, m.recoveries, m.idemKeys, m.refunds} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func mode(sandbox bool) string {
	if sandbox {
		return "sandbox"
	}
	return "live"
}
