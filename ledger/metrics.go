package ledger

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Results of a posting beside journal.Outcome's: an entry that can never
// become a transaction, and a Redis error (the entry stays pending).
const (
	resultInvalid = "invalid"
	resultError   = "error"
	// kindEvent labels what went wrong before an entry became a
	// transaction (it could not be read, or its terms could not be).
	kindEvent = "event"
)

type posterMetrics struct {
	postings    *prometheus.CounterVec
	claimed     prometheus.Counter
	channelPaid *prometheus.CounterVec
}

func newPosterMetrics(reg prometheus.Registerer, rdb redis.UniversalClient) (*posterMetrics, error) {
	m := &posterMetrics{
		postings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_ledger_postings_total",
			Help: "Postings the ledger role made off the event streams, by kind and result (posted, replayed, refused, missing, invalid, error).",
		}, []string{"kind", "result"}),
		claimed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_ledger_claimed_total", Help: "Events taken over from a ledger process that read and never acknowledged them.",
		}),
		channelPaid: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_channel_paid_minor_total",
			Help: "Paid orders' charged amounts per channel, in minor units of the charged currency (counted once per order).",
		}, []string{"channel", "currency"}),
	}
	for _, c := range []prometheus.Collector{m.postings, m.claimed, m.channelPaid, newLagCollector(rdb)} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

type settlerMetrics struct {
	settled *prometheus.CounterVec
	due     prometheus.Gauge
}

func newSettlerMetrics(reg prometheus.Registerer) (*settlerMetrics, error) {
	m := &settlerMetrics{
		settled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_ledger_settled_total",
			Help: "Settlement moves done, by kind (settlement, reserve_release) and result (posted, clamped, replayed, empty).",
		}, []string{"kind", "result"}),
		due: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_ledger_settle_due", Help: "Settlement moves due and not yet done, at the last pass.",
		}),
	}
	for _, c := range []prometheus.Collector{m.settled, m.due} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// lagCollector reports, at scrape time, the entries of each shard's event
// stream the ledger group has not acknowledged: not yet read (lag) plus
// read and not acknowledged (pending). Money the journal does not show yet.
type lagCollector struct {
	rdb  redis.UniversalClient
	desc *prometheus.Desc
}

func newLagCollector(rdb redis.UniversalClient) *lagCollector {
	return &lagCollector{rdb: rdb, desc: prometheus.NewDesc("gateway_ledger_lag_events",
		"Event stream entries the ledger group has not acknowledged yet (unread plus pending).", []string{"shard"}, nil)}
}

func (l *lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l *lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for s, n := range GroupLag(ctx, l.rdb) {
		ch <- prometheus.MustNewConstMetric(l.desc, prometheus.GaugeValue, float64(n), strconv.Itoa(int(s)))
	}
}

// GroupLag reads, in one pipeline, each shard's entries the ledger group
// has not acknowledged. A shard whose stream or group does not exist yet is
// left out; a group whose lag Redis cannot tell (entries deleted) counts
// its pending entries only.
func GroupLag(ctx context.Context, rdb redis.UniversalClient) map[schema.Shard]int64 {
	shards := schema.AllShards()
	cmds := make([]*redis.XInfoGroupsCmd, len(shards))
	_, _ = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, s := range shards {
			cmds[i] = p.XInfoGroups(ctx, schema.EventsKey(s))
		}
		return nil
	})
	out := map[schema.Shard]int64{}
	for i, s := range shards {
		gs, err := cmds[i].Result()
		if err != nil {
			continue
		}
		for _, g := range gs {
			if g.Name == schema.GroupLedger {
				out[s] = max(g.Lag, 0) + g.Pending
			}
		}
	}
	return out
}
