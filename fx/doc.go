// Package fx keeps currency rates as data: set by an operator with
// `gateway fx set`, kept with their history in Redis, and read by every
// process from a copy refreshed each second, so a change needs no restart
// and no request waits on Redis for a rate. Conversions are exact integer
// arithmetic; the rate and the converted amount an order was charged at are
// recorded on the order once and never recomputed (DESIGN.md).
package fx
