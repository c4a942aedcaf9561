// Package events is the typed event catalogue a merchant subscribes to
// beyond SPEC.md's paid callback: its webhook endpoints (URL, the types it
// wants, a signing secret of its own) and the envelope every event is sent
// in. The paid callback to notify_url is not an event of this package and
// never changes; a merchant without endpoints receives only that.
//
// Events are derived from the streams the command side already writes (the
// orders' and the payouts'), so no path that changes an order pays for
// them; the dispatcher fans each out to the endpoints subscribed to it and
// delivers it with Standard Webhooks headers, signed with the endpoint's
// secret.
package events
