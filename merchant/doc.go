// Package merchant keeps merchant accounts (credentials, callback, sandbox or
// live, enabled) and their balances in Redis, and caches accounts in each
// process so that the create path does not pay a Redis round trip for them.
package merchant
