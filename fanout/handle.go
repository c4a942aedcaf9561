package fanout

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
)

// entry is one stream entry of a batch that may mean an event.
type entry struct {
	stream string
	kind   streamKind
	msg    redis.XMessage
	appid  string
}

// handle derives and schedules a batch: the merchants' endpoints in one
// read, then each entry in stream order. An entry is acknowledged once
// each of its events is scheduled (or it means none, or no endpoint takes
// it); one whose scheduling failed stays pending, and so do the later
// entries of the same object (holds), so this process never schedules an
// object's events out of their order.
func (f *FanOut) handle(ctx context.Context, read []redis.XStream) {
	f.inBatch.Lock()
	defer f.inBatch.Unlock()
	ctx = context.WithoutCancel(ctx)
	acks := map[string][]string{}
	ack := func(stream, id, result string) {
		acks[stream] = append(acks[stream], id)
		f.m.entries.WithLabelValues(result).Inc()
	}
	var todo []entry
	seen := map[string]bool{}
	var appids []string
	for _, st := range read {
		for _, m := range st.Messages {
			e, ok := f.candidate(st.Stream, m)
			if !ok {
				ack(st.Stream, m.ID, resultNone)
				continue
			}
			if e.appid == "" {
				f.log.Error("stream entry names no merchant; no event sent", "stream", st.Stream, "id", m.ID)
				ack(st.Stream, m.ID, resultInvalid)
				continue
			}
			todo = append(todo, e)
			if !seen[e.appid] {
				seen[e.appid] = true
				appids = append(appids, e.appid)
			}
		}
	}
	if len(todo) > 0 {
		eps, err := f.eps.ListMany(ctx, appids)
		if err != nil {
			f.redisError("read webhook endpoints", err)
			f.m.entries.WithLabelValues(resultRetry).Add(float64(len(todo)))
			todo = nil
		}
		for _, e := range todo {
			if result := f.schedule(ctx, e, enabled(eps[e.appid])); result != resultRetry {
				ack(e.stream, e.msg.ID, result)
			} else {
				f.m.entries.WithLabelValues(resultRetry).Inc()
			}
		}
	}
	if err := f.c.Ack(ctx, acks); err != nil {
		f.redisError("acknowledge entries", err)
	}
}

// candidate says whether an entry may mean an event, and whose, without
// decoding more of it than that takes.
func (f *FanOut) candidate(stream string, m redis.XMessage) (entry, bool) {
	e := entry{stream: stream, kind: f.kinds[stream], msg: m}
	str := func(k string) string { s, _ := m.Values[k].(string); return s }
	switch e.kind {
	case kindOrders:
		switch schema.EventType(str(schema.EvType)) {
		case schema.EventPaid, schema.EventFailed, schema.EventCancelled, schema.EventRefund:
		case schema.EventChanged:
			if u := str(schema.EvUSDT); u != schema.USDTUnderpaid && u != schema.USDTOverpaid {
				return e, false
			}
		default:
			return e, false
		}
		e.appid = schema.RecordField(str, schema.FAppID)
	case kindPayouts:
		if str(payout.EntryType) == payout.EntryTypeDestination {
			en, err := payout.DecodeEntry(m.Values)
			if err != nil {
				return e, true // no appid: refused as invalid
			}
			e.appid = en.Destination.AppID
		} else {
			e.appid = str("appid")
		}
	case kindJournal:
		if k := str("k"); k != journal.KindSettlement && k != journal.KindReserveRelease {
			return e, false
		}
		e.appid = str("m")
	}
	return e, true
}

// enabled is the endpoints that take any event now.
func enabled(all []events.Endpoint) []events.Endpoint {
	out := make([]events.Endpoint, 0, len(all))
	for _, ep := range all {
		if ep.Enabled {
			out = append(out, ep)
		}
	}
	return out
}

// schedule derives e's events and hands each to the engine for the
// endpoints that take it; it answers the entry's result. An entry of an
// object some earlier entry of which is still pending waits (holds).
func (f *FanOut) schedule(ctx context.Context, e entry, eps []events.Endpoint) string {
	if len(eps) == 0 {
		return resultUnsubscribed
	}
	ds, ok := f.derive(ctx, e, eps)
	if !ok {
		return ds.result
	}
	result, tried := resultUnsubscribed, false
	for _, d := range ds.events {
		sub := wanting(eps, d.Event.Type)
		if len(sub) == 0 {
			continue
		}
		key := d.AppID + " " + d.Object
		if !tried && !f.holds.mayTry(key, e.msg.ID) {
			return resultRetry
		}
		tried = true
		if err := f.sched.ScheduleEvent(ctx, d.AppID, d.Event, d.Object, sub); err != nil {
			f.holds.failed(key, e.msg.ID)
			f.log.Warn("schedule event failed; read again later", "type", d.Event.Type, "event", d.Event.ID, "err", err)
			return resultRetry
		}
		f.m.scheduled.WithLabelValues(string(d.Event.Type)).Inc()
		result = resultScheduled
	}
	if len(ds.events) > 0 {
		f.holds.done(ds.events[0].AppID+" "+ds.events[0].Object, e.msg.ID)
	}
	return result
}

func wanting(eps []events.Endpoint, t events.Type) []events.Endpoint {
	var out []events.Endpoint
	for _, ep := range eps {
		if ep.Wants(t) {
			out = append(out, ep)
		}
	}
	return out
}

func (f *FanOut) redisError(what string, err error) {
	f.m.redisErrs.Inc()
	f.log.Warn("events fan-out: "+what+" failed; will retry", "err", err)
}
