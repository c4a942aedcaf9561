// Package command is the write side of the gateway: it takes merchants'
// createorder and cancel requests (safe to retry with an Idempotency-Key)
// and payment events, changes orders in Redis with one Lua script per
// change, and emits every change to the shard's stream in that same script.
// Readers (projector, dispatcher) only ever see the stream.
package command
