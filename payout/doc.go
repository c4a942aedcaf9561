// Package payout pays merchants their available balance: the destinations
// an owner saves (a bank account, a USDT address per network), each usable
// only after a cooling-off period; the payouts asked for against them, whose
// amount and fee move from available to payout_hold in the same step that
// records the request; and their way through an operator's review to the
// sending and its end, paid or failed.
//
// Every state change is one Lua script on the merchant's home shard that
// checks the state it starts from, posts its journal transaction (hold,
// release or payment, each once under its idempotency key) and appends the
// payout's event, so a payout's record, its money and its events are never
// apart and a retried step moves nothing twice.
package payout
