package projector

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	batchSize    prometheus.Histogram
	insertTime   prometheus.Histogram
	insertErrors prometheus.Counter
	lag          prometheus.Histogram
	projected    prometheus.Counter
	deadLetters  prometheus.Counter
	claimed      prometheus.Counter
	trimmed      prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gateway_projector_batch_rows", Help: "Rows per ClickHouse insert.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 8),
		}),
		insertTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gateway_projector_insert_duration_seconds", Help: "Latency of confirmed ClickHouse inserts.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 10),
		}),
		insertErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_projector_insert_errors_total", Help: "Failed ClickHouse inserts (each is retried).",
		}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "gateway_projector_lag_seconds", Help: "Time from an event to its confirmed insert.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 12),
		}),
		projected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_projector_events_total", Help: "Events inserted into ClickHouse and acknowledged.",
		}),
		deadLetters: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_projector_dead_letters_total", Help: "Events that could not be decoded, moved to the dead-letter stream.",
		}),
		claimed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_projector_claimed_total", Help: "Pending events taken over from an idle consumer.",
		}),
		trimmed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_stream_trimmed_entries_total", Help: "Stream entries trimmed after every group acknowledged them.",
		}),
	}
	for _, c := range []prometheus.Collector{m.batchSize, m.insertTime, m.insertErrors, m.lag, m.projected, m.deadLetters, m.claimed, m.trimmed} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
