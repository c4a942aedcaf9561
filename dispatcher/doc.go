// Package dispatcher sends the paid-order webhook of SPEC.md's Events
// section: it reads every shard's event stream in the consumer group
// "dispatcher" and POSTs a signed, form-encoded callback to the order's
// notify_url until the merchant answers "success", on DESIGN.md's retry
// schedule, then dead-letters.
//
// All delivery state is in Redis, on the order's shard, so it survives
// restarts and is shared by every dispatcher process:
//
//   - A paid event schedules the delivery once (it is keyed by the order),
//     and only then is the stream entry acknowledged; entries a crashed
//     consumer held are taken over with XAUTOCLAIM.
//   - Due deliveries wait in one queue per destination host, indexed per
//     shard by their earliest due time. A worker claims by host, within its
//     process's global and per-host limits, so one hanging endpoint holds at
//     most PerHost slots and never stands in front of other merchants' work.
//   - A claim is a lease: the delivery's score moves to the end of the lease
//     and a token is stored. Nobody else can claim it meanwhile, and if the
//     process dies the delivery falls due again by itself. The attempt's own
//     deadline ends before the lease does, so two attempts of one delivery
//     never run at once.
//   - The attempt's outcome is one script: the attempt is appended to the
//     order's log, then the delivery is marked delivered, rescheduled with
//     jitter or dead-lettered. A success always wins; a failure only counts
//     if the lease is still the attempt's. The same script leases the next
//     due delivery of the host's queue, so under a backlog a slot goes from
//     one attempt to the next (at most runLength in a row) without a claim
//     round of its own.
//   - Round trips are shared: one read of the streams is scheduled in one
//     pipeline and acknowledged in another, a claim round asks every shard
//     with work in one pipeline (the free slots shared out exactly among
//     them), and concurrent attempt records go out together (platform.Batcher).
//     With appendfsync always each round trip waits for an fsync, so this is
//     what sets the deliveries per second.
//
// Every attempt also carries the modern headers (modern.go):
// webhook-id (one per event, the same on every attempt), webhook-timestamp
// and webhook-signature, an HMAC-SHA256 in the style of the Standard
// Webhooks specification with the merchant's webhook secret (two during a
// rotation's grace period). Merchants may ask for a resend themselves
// (ResendAPI), which queues what `gateway webhook resend` does.
//
// Endpoint events (events.go and the event*.go files) are the catalogue's
// events sent to merchants' webhook endpoints, beside the paid callback and
// through the same engine:
//
//   - ScheduleEvent stores one delivery per event and endpoint, keyed
//     <event id>.<endpoint id> on the merchant's HOME shard (beside its
//     endpoints), once: scheduling it again changes nothing. The body is the
//     event's JSON, stored once and sent byte-identical on every attempt,
//     resend and replay.
//   - Deliveries share the paid webhook's hash and log prefixes and its host
//     queues, so the one claim script leases both kinds and the per-host
//     limit covers a merchant's callbacks and events to a host together. A
//     claimed id starting "evt_" is an event: its claim brings the
//     endpoint as stored at that moment (its secrets, two during a
//     rotation's overlap; whether it is enabled) from the home shard, so
//     the attempt makes no read of its own; it posts JSON with webhook-id
//     (the event id), webhook-timestamp and webhook-signature, and counts
//     any 2xx as acknowledged. Its outcome is eventfinish.lua, the finish
//     script's sibling (same batcher, same claim of the host queue's next
//     delivery for the slot).
//   - Order per object: per (endpoint, object) one delivery is the head,
//     named in the endpoint's heads hash; only it is in a host queue, and
//     when it ends (delivered or dead-lettered) the next falls due. The
//     others wait behind it in a FIFO list that exists only while some do:
//     an object with one event at a time, the usual one, costs no list. A
//     resend or replay of an ended delivery joins the back of its FIFO.
//   - Writes per delivery are few, because with appendfsync always each
//     is appended to the AOF: the first attempt's record is kept in the
//     delivery hash (later ones in its log), and no attempt refreshes a
//     time to live (a delivery and its attempts are kept EventRetention
//     from creation, as its history entry is).
//   - Health: per endpoint the time of its first failure since its last
//     success. A failure EndpointDisableAfter (72 h) after it disables the
//     endpoint (events.Store.Disable, "failing"), raises an
//     endpoint_disabled exception for operators, sends endpoint.disabled to
//     the merchant's other endpoints and dead-letters what it had queued
//     ("endpoint disabled"). An attempt of a removed or disabled endpoint is
//     not sent; its delivery is dead-lettered with that reason.
//   - Each endpoint's history is a sorted index by creation, trimmed to
//     EventRetention (30 days) and EventHistoryCap (10,000 newest).
//     EventDeliveries reads it for the doors (no dispatcher needed): every
//     read and action answers 404 for another merchant's.
//
// Requests go through fasthttp's client with a dialer that resolves names
// itself and refuses private, loopback, link-local and metadata addresses
// unless AllowPrivate; it never follows redirects, never resends by itself
// and reads at most 4 KiB of an answer. It speaks HTTP/1.1 only, as every
// webhook receiver does.
package dispatcher
