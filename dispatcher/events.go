package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
)

// EndpointStore is what the engine asks of merchants' webhook endpoints (an
// *events.Store): each attempt reads its endpoint for the secrets of that
// moment, and an endpoint failing for days is disabled through it (audited
// as the system's decision).
type EndpointStore interface {
	Get(ctx context.Context, appid, id string) (events.Endpoint, error)
	List(ctx context.Context, appid string) ([]events.Endpoint, error)
	Disable(ctx context.Context, appid, id, why string) (events.Endpoint, error)
}

// EventDeliveries are the catalogue's events sent to merchants' webhook
// endpoints: scheduling them (the fan-out's ScheduleEvent), and what the
// doors read and ask for (deliveries, resend, replay, test). It needs no
// running dispatcher: a process of any role reads and queues in Redis,
// and the dispatchers deliver what is due.
type EventDeliveries struct {
	cfg   Config
	rdb   redis.UniversalClient
	store *store
	eps   EndpointStore
	m     *eventMetrics
	log   *slog.Logger
	now   func() time.Time
	poke  func() // wakes this process's dispatcher, when it runs one
}

// NewEventDeliveries reads and queues endpoint deliveries in rdb under cfg
// (its retention, history cap and disable-after; its schedule for
// deliveries this process makes). reg may be nil: the doors count nothing.
func NewEventDeliveries(cfg Config, rdb redis.UniversalClient, eps EndpointStore, reg prometheus.Registerer, log *slog.Logger) (*EventDeliveries, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("event deliveries config: %w", err)
	}
	if rdb == nil || eps == nil {
		return nil, errors.New("event deliveries: redis and an endpoint store are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := newEventMetrics(reg)
	if err != nil {
		return nil, err
	}
	return newEventDeliveries(cfg, rdb, newStore(rdb, cfg), eps, m, log, func() {}), nil
}

func newEventDeliveries(cfg Config, rdb redis.UniversalClient, s *store, eps EndpointStore, m *eventMetrics, log *slog.Logger, poke func()) *EventDeliveries {
	return &EventDeliveries{cfg: cfg, rdb: rdb, store: s, eps: eps, m: m, log: log, now: cfg.Now.Now, poke: poke}
}

// WithEndpoints lets the dispatcher deliver endpoint events, reading and
// disabling endpoints in eps. Without it, event deliveries wait: each
// attempt fails as an internal error and is retried.
func (d *Dispatcher) WithEndpoints(eps EndpointStore) *Dispatcher {
	d.ev.eps = eps
	return d
}

// Events is the dispatcher's EventDeliveries, the fan-out's Scheduler:
// scheduling through it wakes this process's delivery loop at once.
func (d *Dispatcher) Events() *EventDeliveries { return d.ev }

// eventMetrics are the endpoint deliveries' series; every label is from a
// fixed list.
type eventMetrics struct {
	scheduled prometheus.Counter
	attempts  *prometheus.CounterVec // by outcome, as the paid webhook's
	ended     *prometheus.CounterVec // delivered, dead_retries, dead_disabled, dead_removed
	disabled  prometheus.Counter
	delivery  prometheus.Histogram
}

func newEventMetrics(reg prometheus.Registerer) (*eventMetrics, error) {
	m := &eventMetrics{
		scheduled: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_webhook_event_deliveries_scheduled_total",
			Help: "Endpoint event deliveries scheduled (one per event and endpoint; a repeat is not counted)."}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_webhook_event_attempts_total",
			Help: "Endpoint event attempts by outcome: success, http_status, timeout, network, refused, invalid_url, internal, not_sent."}, []string{"outcome"}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_webhook_event_deliveries_ended_total",
			Help: "Endpoint event deliveries that ended: delivered, dead (every retry failed), dead_disabled (endpoint disabled), dead_removed (endpoint removed)."}, []string{"end"}),
		disabled: prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_webhook_endpoints_disabled_total",
			Help: "Webhook endpoints the gateway disabled because every attempt failed for GATEWAY_WEBHOOK_ENDPOINT_DISABLE_AFTER."}),
		delivery: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "gateway_webhook_event_delivery_seconds",
			Help:    "Time from an event's creation to its acknowledgement by an endpoint, retries included.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600}}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.scheduled, m.attempts, m.ended, m.disabled, m.delivery} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register event delivery metrics: %w", err)
		}
	}
	return m, nil
}
