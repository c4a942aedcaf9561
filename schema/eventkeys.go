package schema

// Endpoint-event deliveries (the events of the catalogue sent to merchants'
// webhook endpoints). Every key is on the merchant's HOME shard, beside its
// endpoints (EndpointsKey), so one script sees all of a delivery's state.
//
// A delivery's hash and attempt log share the paid webhook's prefixes
// (WebhookKey, WebhookLogKey) and its host queues (WebhookQueueKey,
// WebhookHostsKey): one claim serves both, and one per-host limit covers a
// merchant's callbacks and events to one host together. Their ids never
// meet: an order id starts with "P", a refund's with "rf_", an event
// delivery's with "evt_" (<event id>.<endpoint id>).

// EventDeliveryKey is the hash of one endpoint delivery: st, n, due,
// lease, man, url, host, appid, p (the body as sent), paid (created, ms),
// ep, obj, type, why (why it was dead-lettered), a1 (the first attempt's
// record, WebhookAttempt JSON), na (how many attempts are recorded).
func EventDeliveryKey(s Shard, id string) string { return WebhookKey(s, id) }

// EventLogKey is the list of one endpoint delivery's attempts after its
// first (that one is the hash's a1), oldest first (WebhookAttempt JSON).
// A delivery acknowledged at its first attempt has none.
func EventLogKey(s Shard, id string) string { return WebhookLogKey(s, id) }

// EventFIFOKey is the queue of endpoint epid's deliveries about one object
// (an order, a payout, a destination, a balance) waiting behind the one
// being attempted (EventHeadsKey), in the order they were scheduled. It
// exists only while an object has more than one delivery not ended: the
// usual object, with one event at a time, costs no list at all.
func EventFIFOKey(s Shard, epid, object string) string {
	return EventFIFOPrefix(s) + epid + ":" + object
}

// EventFIFOPrefix starts every EventFIFOKey of shard s (scripts name a
// FIFO from a delivery's endpoint and object).
func EventFIFOPrefix(s Shard) string { return "gw:" + s.Tag() + ":ev:fifo:" }

// EventHeadsKey is endpoint epid's hash of object → the delivery of it
// that is in a host queue (the head: the only one attempted; the rest wait
// in its EventFIFOKey): what disabling the endpoint dead-letters. With epid
// empty it is the prefix of every such key of shard s.
func EventHeadsKey(s Shard, epid string) string { return "gw:" + s.Tag() + ":ev:heads:" + epid }

// EventIndexKey is merchant appid's endpoint epid's deliveries by creation
// time (ms): its history, trimmed to the retention and its newest.
func EventIndexKey(appid, epid string) string {
	return "gw:" + HomeShard(appid).Tag() + ":ev:idx:" + appid + ":" + epid
}

// EventHealthKey is merchant appid's hash of endpoint id → when its first
// failed attempt since its last acknowledged one was (ms).
func EventHealthKey(appid string) string {
	return "gw:" + HomeShard(appid).Tag() + ":ev:health:" + appid
}

// ExceptionEndpointDisabled is an endpoint the gateway disabled after it
// failed for days, in the operators' exceptions queue.
const ExceptionEndpointDisabled = "endpoint_disabled"

// EndpointExceptionsKey indexes a shard's endpoints the gateway disabled:
// member "<appid> <endpoint id>", score when (ms). EndpointExceptionKey
// holds each one's JSON detail by the same member.
func EndpointExceptionsKey(s Shard) string { return "gw:" + s.Tag() + ":exc:ep" }

// EndpointExceptionKey is the hash of EndpointExceptionsKey's details.
func EndpointExceptionKey(s Shard) string { return "gw:" + s.Tag() + ":exc:epd" }
