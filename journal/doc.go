// Package journal is the gateway's double-entry ledger: every movement of
// money is one transaction of postings that sum to zero per currency, posted
// once under its idempotency key, with the balances it changes, in one
// script on the home shard of the merchant it belongs to. Nothing else
// writes a balance.
//
// Accounts are named as DESIGN.md's Money section names them:
// merchant:<appid>:pending|available|reserve|payout_hold, platform:fees,
// platform:fx, platform:transit (a balance payment between two merchants on
// two shards, in flight), platform:spent (a merchant's own balance order),
// channel:<id>:receivable, channel:<id>:cost, payouts:in_transit, topup,
// adjustment and opening. A balance is the sum of its account's postings:
// what the platform owes is positive (merchant accounts, platform income),
// where the money came from is negative (a provider account's receivable,
// top-ups). The platform's accounts are kept per shard and summed on read,
// so that a transaction never needs a second shard.
package journal
