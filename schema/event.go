package schema

import (
	"encoding/json"
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

// Stream entry fields of the event envelope. The Lua scripts write them and
// the consumers read them; "order" is the order hash as a JSON object, taken
// inside the same script that changed it.
const (
	EvType    = "type"
	EvVersion = "v"
	EvAt      = "at"
	EvOrder   = "order"
)

// Event is one change of one order as the stream carries it.
type Event struct {
	StreamID string
	Type     EventType
	Version  int64
	At       time.Time
	Order    Order
}

// DecodeEvent reads a stream entry. Consumers dead-letter entries it refuses.
func DecodeEvent(streamID string, values map[string]any) (Event, error) {
	str := func(k string) string { s, _ := values[k].(string); return s }
	ev := Event{StreamID: streamID, Type: EventType(str(EvType))}
	switch ev.Type {
	case EventCreated, EventReady, EventPaid, EventFailed, EventCancelled:
	default:
		return Event{}, fmt.Errorf("event %s: unknown type %q", streamID, ev.Type)
	}
	v, err := strconv.ParseInt(str(EvVersion), 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("event %s: version: %w", streamID, err)
	}
	ms, err := strconv.ParseInt(str(EvAt), 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("event %s: time: %w", streamID, err)
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(str(EvOrder)), &h); err != nil {
		return Event{}, fmt.Errorf("event %s: order snapshot: %w", streamID, err)
	}
	o, err := OrderFromFields(h)
	if err != nil {
		return Event{}, fmt.Errorf("event %s: %w", streamID, err)
	}
	ev.Version, ev.At, ev.Order = v, time.UnixMilli(ms).UTC(), o
	return ev, nil
}
