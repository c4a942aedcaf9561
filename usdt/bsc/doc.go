// Package bsc reads BEP20 USDT transfers from a BNB Smart Chain node's
// Ethereum JSON-RPC API for the USDT reviewers: Client implements
// usdt.Chain, Sim answers the same API in the sandbox and in tests.
//
// A transfer is what the token contract logged (its Transfer event in the
// receipt), never what the transaction's input asked for: a contract that
// is not the token can be called with the same input. A failed transaction
// has no logs, hence no transfers; its status says it failed.
package bsc
