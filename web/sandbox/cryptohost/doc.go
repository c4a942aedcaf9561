// Package cryptohost is the sandbox's simulated cryptohost provider: its
// charge API, its hosted page and its webhooks, built from the family's own
// charge and webhook types (provider/cryptohost) and signed with its Sign.
package cryptohost
