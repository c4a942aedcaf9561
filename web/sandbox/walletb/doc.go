// Package walletb is the sandbox's simulated wallet_b provider: its JSON
// API (native order, query, refunds), its QR-code page and its encrypted
// notifications, signed, sealed and checked with the family's own code and
// the sandbox keys the family embeds (provider/walletb).
package walletb
