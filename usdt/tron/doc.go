// Package tron reads TRC20 USDT transfers from a TRON full node's HTTP API
// (as TronGrid exposes it) for the USDT reviewers: Client implements
// usdt.Chain, Sim answers the same API in the sandbox and in tests.
//
// The three calls are POST /wallet/gettransactionbyid,
// /wallet/gettransactioninfobyid and /wallet/getnowblock. Transfers are
// read from the Transfer events of the transaction info (what the token
// contract did), not from what the caller asked it to do; a failed
// transaction has no events, so its intended transfer is decoded from the
// trigger's call data, for the reviewer's evidence only.
package tron
