package dispatcher

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// group is the consumer group every dispatcher process joins (DESIGN.md).
const group = schema.GroupDispatcher

// readCount bounds one stream read, so a backlog is worked in slices.
const readCount = 256

// newConsumer reads every shard's stream in the dispatcher's group.
func (d *Dispatcher) newConsumer() (*platform.Consumer, error) {
	return platform.NewConsumer(d.rdb, platform.ConsumerConfig{
		Group: group, Name: d.cfg.Consumer, Count: readCount, Block: d.cfg.Block, ClaimIdle: d.cfg.ClaimIdle,
		OnError: func(what string, err error) { d.m.redisErrs.Inc() },
	}, d.log)
}

// consume hands what the consumer's readers get to handle.
func (d *Dispatcher) consume(ctx context.Context) {
	d.c.Start(ctx)
	for ctx.Err() == nil {
		if read := d.c.Next(ctx, d.cfg.Block, readCount); len(read) > 0 {
			d.handle(ctx, read)
		}
	}
}

// reclaim takes over entries another consumer read but never acknowledged
// (it crashed, or Redis failed under it) once they have been idle ClaimIdle.
// Handling is idempotent, so an entry handled twice schedules one delivery.
func (d *Dispatcher) reclaim(ctx context.Context) {
	platform.Every(ctx, max(d.cfg.ClaimIdle/2, 10*time.Millisecond), func(ctx context.Context) {
		d.c.Claim(ctx, readCount, func(st redis.XStream) bool {
			d.log.Info("took over unacknowledged events", "stream", st.Stream, "count", len(st.Messages))
			d.handle(ctx, []redis.XStream{st})
			return true
		})
	})
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
			if dl, ok := d.deliveryOf(ctx, m); ok {
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
	err := d.c.Ack(bg, acks)
	if err != nil {
		d.redisError("acknowledge events", err)
	}
}

// deliveryOf is the delivery a paid event, or a refund event that ended
// its refund, with a notify_url asks for; every other entry needs nothing
// and is only acknowledged. A refund's delivery is keyed by the refund id,
// so it is its own delivery beside the order's paid webhook.
func (d *Dispatcher) deliveryOf(ctx context.Context, m redis.XMessage) (delivery, bool) {
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
	if o.Door == schema.DoorEpay {
		if ev.Refund != nil {
			d.m.events.WithLabelValues("ignored").Inc()
			return delivery{}, false
		}
		return delivery{shard: shard, id: o.ID, url: o.NotifyURL, appid: o.AppID, params: epayParams(ctx, o, d.cfg.EpayTypes),
			paid: o.CompletedAt}, true
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
