// Package exchange reads our account at a Binance-style exchange for the
// USDT reviewers: the deposit history (a transfer to our exchange deposit
// address, credited or not) and the Pay trade history (a payer who paid
// the order inside the exchange); and, for the payout rail, withdrawals of
// USDT under our own client id and the withdraw history that finds them by
// it. Client implements usdt.Exchange; Sim answers the same signed REST API
// in the sandbox and in tests.
//
// Every call is signed (a GET, or the withdrawal's POST with its
// parameters in the query string): the query string ends with timestamp and
// recvWindow, and signature is the lower-case hex HMAC-SHA256 of the query
// string exactly as sent, under the account's secret; the API key travels
// in the X-MBX-APIKEY header.
package exchange
