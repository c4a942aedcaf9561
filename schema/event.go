package schema

import (
	"fmt"
	"strconv"
	"time"
)

// EventType names what happened to an order. A new order's event is created,
// unless it was paid at once (balance), whose single event is paid.
type EventType string

const (
	EventCreated   EventType = "created"
	EventReady     EventType = "ready"
	EventPaid      EventType = "paid"
	EventFailed    EventType = "failed"
	EventCancelled EventType = "cancelled"
	// EventChanged is a change of an order's details, not of its status: the
	// payer's choice on a deferred flow, the provider's answer to it.
	EventChanged EventType = "changed"
	// EventRefund is a refund of the order asked for or finished; the entry
	// carries the refund record (EvRefund) beside the order's fields.
	EventRefund EventType = "refund"
)

// EventFor is the event a move into status to emits.
func EventFor(to Status) EventType {
	switch to {
	case StatusReady:
		return EventReady
	case StatusPaid:
		return EventPaid
	case StatusFailed:
		return EventFailed
	case StatusCancelled:
		return EventCancelled
	}
	return EventCreated
}

// Stream entry fields of the event envelope. The Lua scripts write the type,
// the time, then the order hash's own fields as the entry's fields (the
// version is the order's "v"), in the same script that changed the order.
// Flat fields, not a JSON snapshot: decoding JSON cost the projector ~19 us
// an event, most of its catch-up time.
const (
	EvType = "type"
	EvAt   = "at"
	// EvRefund is a refund event's record (JSON, Refund).
	EvRefund = "rf"
	// EvUSDT is what a USDT review's outcome found (USDTUnderpaid,
	// USDTOverpaid, USDTLate), on that outcome's entry only: a fact of
	// the happening, not of the order, so no later entry repeats it.
	EvUSDT = "usdt"
)

// Event is one change of one order as the stream carries it.
type Event struct {
	StreamID string
	Type     EventType
	Version  int64
	At       time.Time
	Order    Order
	Refund   *Refund // refund events only
	USDT     string  // EvUSDT: a USDT review outcome's finding, if any
}

// EventFields are a stream entry's values for an event, exactly as the
// scripts write them, for tools and tests that emit events themselves.
func EventFields(typ EventType, at time.Time, o *Order) []any {
	f := o.Fields()
	out := make([]any, 0, 4+len(f))
	out = append(out, EvType, string(typ), EvAt, strconv.FormatInt(at.UnixMilli(), 10))
	for _, v := range f {
		out = append(out, v)
	}
	return out
}

// DecodeEvent reads a stream entry. Consumers dead-letter entries it refuses.
func DecodeEvent(streamID string, values map[string]any) (Event, error) {
	str := func(k string) string { s, _ := values[k].(string); return s }
	ev := Event{StreamID: streamID, Type: EventType(str(EvType)), USDT: str(EvUSDT)}
	switch ev.Type {
	case EventCreated, EventReady, EventPaid, EventFailed, EventCancelled, EventChanged:
	case EventRefund:
		r, err := DecodeRefund(str(EvRefund))
		if err != nil {
			return Event{}, fmt.Errorf("event %s: %w", streamID, err)
		}
		ev.Refund = &r
	default:
		return Event{}, fmt.Errorf("event %s: unknown type %q", streamID, ev.Type)
	}
	ms, err := strconv.ParseInt(str(EvAt), 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("event %s: time: %w", streamID, err)
	}
	o, err := orderFrom(str)
	if err != nil {
		return Event{}, fmt.Errorf("event %s: %w", streamID, err)
	}
	if o.Version < 1 {
		return Event{}, fmt.Errorf("event %s: order %s has no version", streamID, o.ID)
	}
	ev.Version, ev.At, ev.Order = o.Version, time.UnixMilli(ms).UTC(), o
	return ev, nil
}
