package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// group is the consumer group every dispatcher process joins (DESIGN.md).
const group = "dispatcher"

// readCount bounds one stream read, so a backlog is worked in slices.
const readCount = 256

// ensureGroups creates the group on every shard's stream, from the start of
// the stream so that events written before the first dispatcher ran are
// delivered too. An existing group is left where it is.
func (d *Dispatcher) ensureGroups(ctx context.Context) error {
	for _, s := range schema.AllShards() {
		err := d.rdb.XGroupCreateMkStream(ctx, schema.EventsKey(s), group, "0").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return fmt.Errorf("create consumer group %s on %s: %w", group, schema.EventsKey(s), err)
		}
	}
	return nil
}

// consume reads new entries of every shard's stream with one blocking read.
func (d *Dispatcher) consume(ctx context.Context) {
	shards := schema.AllShards()
	streams := make([]string, 0, 2*len(shards))
	for _, s := range shards {
		streams = append(streams, schema.EventsKey(s))
	}
	for range shards {
		streams = append(streams, ">")
	}
	var pause backoff
	for ctx.Err() == nil {
		res, err := d.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: group, Consumer: d.cfg.Consumer, Streams: streams, Count: readCount, Block: d.cfg.Block,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			d.redisError("read event streams", err)
			if strings.HasPrefix(err.Error(), "NOGROUP") {
				if err := d.ensureGroups(ctx); err != nil {
					d.redisError("recreate consumer groups", err)
				}
			}
			pause.wait(ctx)
			continue
		}
		pause.reset()
		d.handle(ctx, res)
	}
}

// reclaim takes over entries another consumer read but never acknowledged
// (it crashed, or Redis failed under it) once they have been idle ClaimIdle.
// Handling is idempotent, so an entry handled twice schedules one delivery.
func (d *Dispatcher) reclaim(ctx context.Context) {
	platform.Every(ctx, max(d.cfg.ClaimIdle/2, 10*time.Millisecond), func(ctx context.Context) {
		for _, s := range schema.AllShards() {
			d.reclaimShard(ctx, s)
		}
	})
}

func (d *Dispatcher) reclaimShard(ctx context.Context, s schema.Shard) {
	stream := schema.EventsKey(s)
	start := "0-0"
	for ctx.Err() == nil {
		msgs, next, err := d.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: stream, Group: group, Consumer: d.cfg.Consumer, MinIdle: d.cfg.ClaimIdle, Start: start, Count: readCount,
		}).Result()
		if err != nil {
			if ctx.Err() == nil && !strings.HasPrefix(err.Error(), "NOGROUP") {
				d.redisError("claim idle stream entries", err)
			}
			return
		}
		if len(msgs) > 0 {
			d.log.Info("took over unacknowledged events", "stream", stream, "count", len(msgs))
			d.handle(ctx, []redis.XStream{{Stream: stream, Messages: msgs}})
		}
		if next == "0-0" || next == "" {
			return
		}
		start = next
	}
}

// handle schedules what the entries ask for and acknowledges each entry
// once its delivery is safely in Redis; an entry that failed stays pending
// in the group and comes back through reclaim. Whatever streams the entries
// come from, scheduling is one pipeline and acknowledging another: a read
// costs two round trips, not two per stream.
func (d *Dispatcher) handle(ctx context.Context, read []redis.XStream) {
	acks := make(map[string][]string, len(read))
	var ds []delivery
	var ids, streams []string
	for _, st := range read {
		for _, m := range st.Messages {
			if dl, ok := d.deliveryOf(m); ok {
				ds, ids, streams = append(ds, dl), append(ids, m.ID), append(streams, st.Stream)
			} else {
				acks[st.Stream] = append(acks[st.Stream], m.ID)
			}
		}
	}
	bg := context.WithoutCancel(ctx)
	added, errs := d.store.addAll(bg, ds)
	scheduled := false
	for i := range ds {
		switch {
		case errs[i] != nil:
			d.redisError("schedule webhook", errs[i])
			continue
		case added[i]:
			scheduled = true
			d.m.events.WithLabelValues("scheduled").Inc()
		default:
			d.m.events.WithLabelValues("duplicate").Inc()
		}
		acks[streams[i]] = append(acks[streams[i]], ids[i])
	}
	if scheduled {
		d.poke()
	}
	if len(acks) == 0 {
		return
	}
	_, err := d.rdb.Pipelined(bg, func(p redis.Pipeliner) error {
		for stream, done := range acks {
			p.XAck(bg, stream, group, done...)
		}
		return nil
	})
	if err != nil {
		d.redisError("acknowledge events", err)
	}
}

// deliveryOf is the delivery a paid event, or a refund event that ended
// its refund, with a notify_url asks for; every other entry needs nothing
// and is only acknowledged. A refund's delivery is keyed by the refund id,
// so it is its own delivery beside the order's paid webhook.
func (d *Dispatcher) deliveryOf(m redis.XMessage) (delivery, bool) {
	t, _ := m.Values[schema.EvType].(string)
	if t != string(schema.EventPaid) && t != string(schema.EventRefund) {
		d.m.events.WithLabelValues("ignored").Inc()
		return delivery{}, false
	}
	ev, err := schema.DecodeEvent(m.ID, m.Values)
	if err != nil {
		// Retrying cannot repair it; keeping it pending would only block.
		d.log.Error(t+" event cannot be read; no webhook sent", "stream_id", m.ID, "err", err)
		d.m.events.WithLabelValues("invalid").Inc()
		return delivery{}, false
	}
	if ev.Refund != nil && !ev.Refund.Status.Final() {
		d.m.events.WithLabelValues("ignored").Inc()
		return delivery{}, false
	}
	o := &ev.Order
	if o.NotifyURL == "" {
		d.m.events.WithLabelValues("no_notify_url").Inc()
		return delivery{}, false
	}
	shard, ok := schema.ParseOrderID(o.ID)
	if !ok {
		d.log.Error(t+" event names no order of ours; no webhook sent", "stream_id", m.ID, "order", o.ID)
		d.m.events.WithLabelValues("invalid").Inc()
		return delivery{}, false
	}
	if ev.Refund != nil {
		return delivery{shard: shard, id: ev.Refund.ID, url: o.NotifyURL, appid: o.AppID,
			params: schema.RefundWebhookParams(o, ev.Refund), paid: ev.Refund.UpdatedAt()}, true
	}
	return delivery{shard: shard, id: o.ID, url: o.NotifyURL, appid: o.AppID, params: callbackParams(o), paid: o.CompletedAt}, true
}

func (d *Dispatcher) redisError(what string, err error) {
	d.m.redisErrs.Inc()
	d.log.Warn("dispatcher: "+what+" failed; will retry", "err", err)
}

// backoff spaces out retries after Redis errors: 100ms doubling to 5s.
type backoff struct{ d time.Duration }

func (b *backoff) wait(ctx context.Context) {
	b.d = min(max(2*b.d, 100*time.Millisecond), 5*time.Second)
	select {
	case <-ctx.Done():
	case <-time.After(b.d):
	}
}

func (b *backoff) reset() { b.d = 0 }
