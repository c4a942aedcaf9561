// Package exchange is the sandbox's simulated exchange account: its signed
// REST API over the deposits and Pay payments a tester makes, checked with
// the family's own signing and answered with its row types (usdt/exchange).
package exchange
