// Package cryptopsp is the sandbox's simulated cryptopsp provider: its
// invoice and payment API, its payment page and its IPNs, decoded and
// signed with the family's own canonical JSON and Sign (provider/cryptopsp).
package cryptopsp
