// Package walleta is the sandbox's simulated wallet_a provider: its gateway
// API (precreate, query, refund), its QR-code page and its notifications,
// signed with the family's own RSA2 signing and the sandbox keys the family
// embeds (provider/walleta).
package walleta
