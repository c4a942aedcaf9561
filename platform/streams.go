package platform

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// StreamCollector reports, at scrape time, each shard stream's length and
// each consumer group's lag (entries not yet delivered) and pending count
// (delivered, not acknowledged): whether the read side and webhooks keep up.
type StreamCollector struct {
	rdb     redis.UniversalClient
	length  *prometheus.Desc
	lag     *prometheus.Desc
	pending *prometheus.Desc
}

// NewStreamCollector describes the stream metrics.
func NewStreamCollector(rdb redis.UniversalClient) *StreamCollector {
	return &StreamCollector{
		rdb:     rdb,
		length:  prometheus.NewDesc("gateway_stream_length", "Entries in a shard's event stream.", []string{"shard"}, nil),
		lag:     prometheus.NewDesc("gateway_stream_group_lag", "Entries a consumer group has not read yet.", []string{"shard", "group"}, nil),
		pending: prometheus.NewDesc("gateway_stream_group_pending", "Entries a consumer group read and has not acknowledged.", []string{"shard", "group"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (s *StreamCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.length
	ch <- s.lag
	ch <- s.pending
}

// Collect reads every stream in one pipeline.
func (s *StreamCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	shards := schema.AllShards()
	lens := make([]*redis.IntCmd, len(shards))
	groups := make([]*redis.XInfoGroupsCmd, len(shards))
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, sh := range shards {
			lens[i] = p.XLen(ctx, schema.EventsKey(sh))
			groups[i] = p.XInfoGroups(ctx, schema.EventsKey(sh))
		}
		return nil
	})
	for i, sh := range shards {
		label := strconv.Itoa(int(sh))
		if n, err := lens[i].Result(); err == nil {
			ch <- prometheus.MustNewConstMetric(s.length, prometheus.GaugeValue, float64(n), label)
		}
		gs, err := groups[i].Result()
		if err != nil {
			continue // no stream yet
		}
		for _, g := range gs {
			ch <- prometheus.MustNewConstMetric(s.lag, prometheus.GaugeValue, float64(max(g.Lag, 0)), label, g.Name)
			ch <- prometheus.MustNewConstMetric(s.pending, prometheus.GaugeValue, float64(g.Pending), label, g.Name)
		}
	}
}
