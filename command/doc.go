// Package command is the write side of the gateway: it takes merchants'
// createorder requests and payment events, changes orders in Redis with one
// Lua script per change, and emits every change to the shard's stream in that
// same script. Readers (projector, dispatcher) only ever see the stream.
package command
