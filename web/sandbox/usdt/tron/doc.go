// Package tron is the sandbox's simulated TRON full node: the USDT
// transfers a tester makes, answered in the wire format the family's
// client decodes (usdt/tron).
package tron
