// Package epay holds the rules of the second merchant door: the widely
// deployed "epay" merchant protocol (v1, MD5), which many merchant
// platforms already speak through a plugin. The door translates that
// protocol onto the gateway's own use cases (the same orders, limits, rate
// limits, payer pages, providers and dispatcher); this package keeps what
// differs from SPEC.md's API: its signature rule, the operator's mapping of
// the protocol's payment type words to our method codes, and its answers.
// Brand names never appear here: the type words are the operator's
// configuration.
package epay
