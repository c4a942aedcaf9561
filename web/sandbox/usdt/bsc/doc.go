// Package bsc is the sandbox's simulated BSC JSON-RPC node: the USDT
// transfers a tester makes, answered in the wire format the family's
// client decodes (usdt/bsc).
package bsc
