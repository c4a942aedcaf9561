// Package command is the write side of the gateway: it takes merchants'
// createorder, cancel and refund requests (safe to retry with an
// Idempotency-Key), payers' choices and payment events, changes orders in
// Redis with one Lua script per change, and emits every change to the
// shard's stream in that same script. Readers (projector, dispatcher) only
// ever see the stream.
//
// Each use case is a small type holding only its collaborators, all built
// by New (usecases.go); the HTTP door is web/api (and web/notify), which only
// translate requests into calls and answers, and the checkout pages and the
// gateway CLI call the same types (docs/architecture.md).
package command
