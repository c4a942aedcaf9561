// Package exchange reads our account at a Binance-style exchange for the
// USDT reviewers: the deposit history (a transfer to our exchange deposit
// address, credited or not) and the Pay trade history (a payer who paid
// the order inside the exchange). Client implements usdt.Exchange; Sim
// answers the same signed REST API in the sandbox and in tests.
//
// Every call is a signed GET: the query string ends with timestamp and
// recvWindow, and signature is the lower-case hex HMAC-SHA256 of the query
// string exactly as sent, under the account's secret; the API key travels
// in the X-MBX-APIKEY header.
package exchange
