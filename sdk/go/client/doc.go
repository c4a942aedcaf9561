// Package client is the official Go SDK of the payment gateway's merchant
// API (SPEC.md): it signs requests the way the gateway checks them, creates
// orders (JSON, or the hosted page's URL), reads and lists them, cancels and
// refunds them, reads the balances, and verifies the webhooks the gateway
// sends — SPEC.md's MD5 form and the Standard Webhooks headers.
//
// It uses the standard library only and imports nothing of the gateway:
// a merchant's server depends on this module alone.
//
// Every call to the gateway takes a context and is bounded by
// Config.Timeout per attempt. A call that failed in transport, with a 5xx
// or with 429 is tried again (Config.Retries times, with a growing pause,
// Retry-After respected); a POST carries an Idempotency-Key that stays the
// same on its retries, so a create that reached the gateway but whose
// answer was lost is answered again, not made twice. The gateway's
// refusals come back as *Error, whose Kind is the gateway's error kind
// (errors.As).
package client

// Version is this SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// userAgent names the SDK and its version to the gateway (its logs tell an
// SDK's calls from hand-written ones).
const userAgent = "paygate-go/" + Version
