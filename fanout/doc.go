// Package fanout turns what the gateway's streams record into the events of
// the catalogue (package events) and hands each to the webhook engine for
// the merchant's endpoints subscribed to it. It reads, in the consumer
// group "events" (schema.GroupEvents), every shard's order stream, payouts'
// stream and journal (whose settlements are balance.settled), in the
// dispatcher role's process; it acknowledges an entry only once every event
// it means is scheduled, so a crash or a Redis failure retries it, and the
// same entry always derives the same event ids (the engine schedules a
// delivery id once).
//
// A merchant without endpoints costs one HGETALL per batch, whatever the
// number of its entries in it: nothing is derived for it.
package fanout
