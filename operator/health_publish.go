package operator

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Provider health is summed from every gateway process, not only the one
// serving the page: each process's HealthPublisher reads its own
// Prometheus registry (the counters the provider calls and notifications
// already keep; nothing is added to any request path) every few seconds
// and adds what grew since its last look to per-minute hashes in Redis,
// which every process can read. Scraping each process's /metrics instead
// would need the page to know every process's address, which only
// Prometheus does; per-minute deltas in Redis also survive a restart of
// the process serving the page, and cost one small pipeline per process
// per interval.

// The metric families the health is made of.
const (
	famCallSeconds = "gateway_provider_call_duration_seconds" // histogram: provider, call
	famCallErrors  = "gateway_provider_call_errors_total"     // provider, call, kind
	famNotified    = "gateway_provider_notifications_total"   // provider, verdict
	famMismatch    = "gateway_provider_payment_mismatch_total"
)

// Fields of a minute's hash, after "<provider>|".
const (
	fCalls    = "calls"
	fErrors   = "errors"
	fAccepted = "accepted"
	fRefused  = "refused"
	fMismatch = "mismatch"
	fLE       = "le=" // a latency bucket's cumulative count, "le=0.25"
)

// healthKeep is how long a minute's hash is kept: the page shows an hour.
const healthKeep = 2 * time.Hour

// HealthMinuteKey is one minute's counts of every provider (unix minute).
func HealthMinuteKey(minute int64) string { return "gw:{health}:m:" + strconv.FormatInt(minute, 10) }

// HealthLiveKey holds, per provider configured live in some process, when
// a process last said so (ms).
const HealthLiveKey = "gw:{health}:live"

// HealthPublisher adds this process's provider counts to Redis.
type HealthPublisher struct {
	rdb    redis.UniversalClient
	gather prometheus.Gatherer
	live   []string
	every  time.Duration
	log    *slog.Logger
	now    func() time.Time
	last   map[string]float64 // field → value at the last look
}

// NewHealthPublisher publishes what gather counts every interval (10 s
// when 0); live are the providers this process has configured live.
func NewHealthPublisher(rdb redis.UniversalClient, gather prometheus.Gatherer, live []string, every time.Duration, log *slog.Logger) *HealthPublisher {
	if every <= 0 {
		every = 10 * time.Second
	}
	return &HealthPublisher{rdb: rdb, gather: gather, live: live, every: every, log: log, now: time.Now, last: map[string]float64{}}
}

// Run publishes until ctx ends, and once more then, so a stopping process
// loses nothing it counted.
func (p *HealthPublisher) Run(ctx context.Context) {
	platform.Every(ctx, p.every, func(ctx context.Context) {
		if err := p.Publish(ctx); err != nil && ctx.Err() == nil {
			p.log.Warn("publish provider health", "err", err)
		}
	})
	flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := p.Publish(flush); err != nil {
		p.log.Warn("publish provider health at stop", "err", err)
	}
}

// Publish adds what grew since the last call to the current minute. A
// failed write keeps the last look as it was, so the next call adds it.
func (p *HealthPublisher) Publish(ctx context.Context) error {
	cur, err := p.read()
	if err != nil {
		return err
	}
	now := p.now()
	key := HealthMinuteKey(now.Unix() / 60)
	_, err = p.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		for f, v := range cur {
			d := v - p.last[f] // counters only grow within a process
			// Empty latency buckets are written too: the quantiles need
			// each bucket's lower bound.
			if d > 0 || strings.Contains(f, "|"+fLE) {
				pipe.HIncrBy(ctx, key, f, int64(d))
			}
		}
		pipe.Expire(ctx, key, healthKeep)
		for _, l := range p.live {
			pipe.HSet(ctx, HealthLiveKey, l, now.UnixMilli())
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.last = cur
	return nil
}

// read sums the registry's provider series into minute-hash fields.
func (p *HealthPublisher) read() (map[string]float64, error) {
	fams, err := p.gather.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			labels := labelMap(m)
			prov := labels["provider"]
			if prov == "" {
				continue
			}
			switch f.GetName() {
			case famCallSeconds:
				h := m.GetHistogram()
				out[prov+"|"+fCalls] += float64(h.GetSampleCount())
				for _, b := range h.GetBucket() {
					out[prov+"|"+fLE+strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)] += float64(b.GetCumulativeCount())
				}
			case famCallErrors:
				out[prov+"|"+fErrors] += m.GetCounter().GetValue()
			case famNotified:
				if refusedVerdict[labels["verdict"]] {
					out[prov+"|"+fRefused] += m.GetCounter().GetValue()
				} else {
					out[prov+"|"+fAccepted] += m.GetCounter().GetValue()
				}
			case famMismatch:
				out[prov+"|"+fMismatch] += m.GetCounter().GetValue()
			}
		}
	}
	return out, nil
}

// refusedVerdict are the verdicts of notifications we refused.
var refusedVerdict = map[string]bool{
	schema.VerdictBadSignature: true, schema.VerdictChannelMismatch: true, schema.VerdictMalformed: true, schema.VerdictUnverified: true,
	schema.VerdictUnknownOrder: true, schema.VerdictUnavailable: true, schema.VerdictError: true,
}

func labelMap(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
