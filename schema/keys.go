package schema

import "strconv"

// The Redis key layout. Every key an order script touches carries its shard's
// hash tag, so each script runs on Redis Cluster too (DESIGN.md).

// OrderKey is the hash holding an order's current state.
func OrderKey(s Shard, id string) string { return "gw:" + s.Tag() + ":order:" + id }

// OrderKeyPrefix lets a script build the key of another order on its shard
// (the order a clientOrderId points at).
func OrderKeyPrefix(s Shard) string { return "gw:" + s.Tag() + ":order:" }

// ClientOrdersKey is the hash of a merchant's clientOrderIds on one shard:
// each clientOrderId held by an order to that order's PackOrderID. A field
// of a hash costs ~85 B where a key of its own cost ~130, and
// Redis memory per live order is held to ≤ 400 B.
func ClientOrdersKey(s Shard, appid string) string { return ClientOrdersKeyPrefix(s) + appid }

// ClientOrdersKeyPrefix lets a script build the merchant's ClientOrdersKey
// from the order's appid.
func ClientOrdersKeyPrefix(s Shard) string { return "gw:" + s.Tag() + ":coids:" }

// ClientOrderKey mapped (appid, clientOrderId) to the order that holds it
// before ClientOrdersKey: the scripts still honour and free such keys of
// orders created before (a live order keeps its clientOrderId), and write
// none.
func ClientOrderKey(s Shard, appid, clientOrderID string) string {
	return ClientOrderKeyPrefix(s) + appid + ":" + clientOrderID
}

// ClientOrderKeyPrefix lets a script rebuild an order's clientOrderId key.
func ClientOrderKeyPrefix(s Shard) string { return "gw:" + s.Tag() + ":coid:" }

// EventsKey is the shard's event stream, read by the projector and the
// dispatcher consumer groups.
func EventsKey(s Shard) string { return "gw:" + s.Tag() + ":events" }

// OrderCountKey counts the orders a merchant created on one shard; the sum
// over shards is the exact total the order listing reports without
// counting millions of rows in ClickHouse.
func OrderCountKey(s Shard, appid string) string { return "gw:" + s.Tag() + ":count:" + appid }

// StatusCountKey is the hash of how many of the merchant's orders on one
// shard are in each status (field: the status code), kept by every script
// that creates an order or changes its status, in the same step as its
// event: a listing filtered by status alone takes its total from the sums
// over shards instead of counting in ClickHouse.
func StatusCountKey(s Shard, appid string) string { return StatusCountKeyPrefix(s) + appid }

// StatusCountKeyPrefix lets a script that reads the order's merchant from
// its hash build the merchant's StatusCountKey.
func StatusCountKeyPrefix(s Shard) string { return "gw:" + s.Tag() + ":stcount:" }

// ExpiryKey indexes by when they expire (ms) the shard's unpaid orders
// whose expiry moved after their create (a usdt_direct hash under review,
// a rejected hash) and the orders created before the expiry buckets
// (ExpiryBucketKey): a sorted set costs ~145 B a member, so a create no
// longer adds to it (Redis memory per live order is held to ≤ 400 B).
func ExpiryKey(s Shard) string { return "gw:" + s.Tag() + ":expiry" }

// ExpiryBucketKey lists, in creation order, the ids of the shard's orders
// created to expire within second sec: after (sec-1)*1000 ms, at or before
// sec*1000 ms. A create appends its id (RPUSH, ~39 B an order, no sorted
// set); the sweep takes a bucket once its second has passed and cancels
// what is still unpaid (command.Expirer). An order paid meanwhile stays
// listed until then and is skipped.
func ExpiryBucketKey(s Shard, sec int64) string {
	return ExpiryBucketPrefix(s) + strconv.FormatInt(sec, 10)
}

// ExpiryBucketPrefix lets the sweep's script name the shard's buckets.
func ExpiryBucketPrefix(s Shard) string { return "gw:" + s.Tag() + ":exp:" }

// ExpiryBucketSecond is the bucket of an order that expires at ms.
func ExpiryBucketSecond(ms int64) int64 { return (ms + 999) / 1000 }

// ExpiryCursorKey holds the last second whose bucket the shard's sweep
// found empty: the next sweep starts after it.
func ExpiryCursorKey(s Shard) string { return "gw:" + s.Tag() + ":expat" }

// BalanceKey is the hash of a merchant's balances by currency (minor units),
// on the merchant's home shard, as kept before the journal: nothing writes
// it any more; the journal's migration (journal.OpenBalances) reads it once
// into opening entries, and the balances are the journal's (AccountsKey).
func BalanceKey(appid string) string { return "gw:" + HomeShard(appid).Tag() + ":balance:" + appid }

// BalanceClientOrderKey holds, for ever, the id of the balance order that
// paid a merchant's clientOrderId, on the merchant's home shard: a signed
// balance create replayed (a reloaded hosted URL) answers that order and
// never debits again (SECURITY.md).
func BalanceClientOrderKey(appid, clientOrderID string) string {
	return "gw:" + HomeShard(appid).Tag() + ":bcoid:" + appid + ":" + clientOrderID
}

// LedgerKey is the merchant's balance ledger stream of before the journal:
// nothing appends to it or reads it any more (the journal, JournalKey,
// records every movement); its data is left where it was.
func LedgerKey(appid string) string { return "gw:" + HomeShard(appid).Tag() + ":ledger:" + appid }

// The merchant directory's keys share the {merchants} hash tag: creating an
// account (its hash, the set of appids, the version bump) and changing one
// (its hash and the version bump) are each one MULTI, which Redis Cluster
// only runs on keys of one slot. The accounts are few and cached by every
// process (merchant.Directory), so one slot carries them easily.

// MerchantKey is a merchant account's hash.
func MerchantKey(appid string) string { return "gw:{merchants}:merchant:" + appid }

// MerchantsKey is the set of every appid, for listing accounts.
const MerchantsKey = "gw:{merchants}:all"

// MerchantSeqKey numbers new accounts.
const MerchantSeqKey = "gw:{merchants}:seq"

// MerchantsVersionKey is bumped on every account change; gateway processes
// poll it to drop cached accounts within a second.
const MerchantsVersionKey = "gw:{merchants}:version"

// USDTAmountKey reserves a payable USDT amount while an order that uses it is
// live, so a deposit of that amount names one order. The payer picks the
// network later, so the amount is kept unique across all networks.
func USDTAmountKey(amount string) string { return "gw:usdt:amount:" + amount }

// USDTTxKey reserves a usdt_direct transaction hash for the order that
// first recorded it, for good (no expiry, kept when that order is paid,
// cancelled or its review rejects the hash): one transfer pays one order,
// ever. It names no shard (a hash is checked across all orders), so it is
// never touched by an order script.
func USDTTxKey(network, hash string) string { return "gw:usdt:tx:" + network + ":" + hash }

// AllShards lists every shard, for readers that consume all streams.
func AllShards() []Shard {
	out := make([]Shard, NumShards)
	for i := range out {
		out[i] = Shard(i)
	}
	return out
}

// NotificationsKey lists the provider notifications an order received, each
// with its verdict, newest first, bounded, kept as long as the order.
func NotificationsKey(s Shard, id string) string { return "gw:" + s.Tag() + ":notif:" + id }

// RefusedNotificationsKey lists notifications that named no order of ours
// or did not verify: what support and operators look at first.
const RefusedNotificationsKey = "gw:{notif}:refused"

// SimKeyPrefix is where the sandbox simulators keep their sessions.
const SimKeyPrefix = "gw:{sim}:"

// SessionKey holds a payer's login session (the appid it is for), named by
// the SHA-256 of the session token in hex: a dump of Redis yields no token
// that logs anyone in.
func SessionKey(tokenHash string) string { return "gw:session:" + tokenHash }

// A balance transfer (a payer's account pays another merchant's order) moves
// money across three shards: the payer's home shard, the order's shard and
// the merchant's home shard. Each step is one script on one shard, guarded by
// a key of that shard named by the order, so every step can be repeated.

// TransferKey is the claim of a balance transfer on the order's shard: who
// pays, which attempt, how far it got.
func TransferKey(s Shard, orderID string) string { return "gw:" + s.Tag() + ":xfer:" + orderID }

// TransfersKey indexes the shard's unfinished transfers by when they were
// claimed (ms), for the recovery sweep.
func TransfersKey(s Shard) string { return "gw:" + s.Tag() + ":xfers" }

// USDTReviewsKey is the shard's queue of usdt_direct orders under automatic
// review: member the order id, score when it is next due (ms); a reviewer
// holds one by moving its score past its lease (DESIGN.md's leases, as for
// webhook deliveries). The hash submit adds to it in the same script.
func USDTReviewsKey(s Shard) string { return "gw:" + s.Tag() + ":usdt:reviews" }

// USDTDeskKey indexes the shard's usdt_direct orders an administrator may
// look at: those waiting for one, and those whose review rejected the hash
// (score the decision's time, ms). The review outcome scripts keep it, so
// the desk reads it per shard and never scans keys.
func USDTDeskKey(s Shard) string { return "gw:" + s.Tag() + ":usdt:desk" }

// OrderHistoryKey lists an order's review decisions (JSON), oldest first.
func OrderHistoryKey(s Shard, id string) string { return "gw:" + s.Tag() + ":hist:" + id }

// USDTConfigKey holds the USDT networks as data (one JSON value per network);
// USDTConfigVersionKey is bumped on every change so processes reload. They
// share the {usdtcfg} tag: a change and its bump are one MULTI, and the
// seed's EXISTS over both is one command, on Redis Cluster too.
const (
	USDTConfigKey        = "gw:{usdtcfg}:networks"
	USDTConfigVersionKey = "gw:{usdtcfg}:version"
)

// FXRatesKey holds the current exchange rates (one JSON entry per pair) and
// FXHistoryKey every rate set, newest first; one tag, so setting a rate and
// recording it is one MULTI.
const (
	FXRatesKey   = "gw:{fx}:rates"
	FXHistoryKey = "gw:{fx}:history"
)

// RateLimitKey is one rate limit's state (its theoretical arrival time):
// one key per script call, so it needs no tag of its own.
func RateLimitKey(class, subject string) string { return "gw:rl:" + class + ":" + subject }

// SharedKeyKey holds a secret every gateway process shares (the checkout's
// CSRF key, for example), created once by whichever process starts first.
func SharedKeyKey(name string) string { return "gw:key:" + name }

// ProjectorDeadLetterKey receives the stream entries the projector cannot
// decode, with the reason, so they are counted and kept instead of blocking
// the stream.
const ProjectorDeadLetterKey = "gw:deadletter:projector"

// IdempotencyKey holds the record of one merchant Idempotency-Key: who
// claimed it, the digest of the parameters it was first used with, and once
// decided the answer every retry replays. It lives on the merchant's home
// shard like the balances, named by the SHA-256 (hex) of the header value,
// so a key of any length or spelling makes one bounded, slot-local name.
func IdempotencyKey(appid, keyHash string) string {
	return "gw:" + HomeShard(appid).Tag() + ":idem:" + appid + ":" + keyHash
}

// Refunds (command's refund use case). An order's refunds live on its shard,
// beside it, so one script reserves an amount, records the refund and emits
// the order's event.

// RefundsKey is the hash of an order's refunds: each refund id to its record
// (JSON, Refund), and "c:" plus each clientRefundId to the refund id.
func RefundsKey(s Shard, orderID string) string { return "gw:" + s.Tag() + ":refunds:" + orderID }

// RefundIndexKey indexes the shard's pending refunds (RefundIndexMember) by
// when they were asked for (ms), for the recovery sweep.
func RefundIndexKey(s Shard) string { return "gw:" + s.Tag() + ":refunds:pending" }

// The journal's keys (package journal) live on the home shard of the
// merchant a transaction belongs to, so that one script posts it whole.

// AccountsKey is the hash of a merchant's ledger accounts: fields
// "<bucket>:<currency>" (pending, available, reserve, payout_hold) holding
// minor units.
func AccountsKey(appid string) string { return "gw:" + HomeShard(appid).Tag() + ":acct:" + appid }

// PlatformAccountsKey is the hash of the platform's accounts on shard s
// (fees, fx, channel receivables, ...): fields "<account>:<currency>". A
// platform account's balance is the sum of its field over every shard.
func PlatformAccountsKey(s Shard) string { return "gw:" + s.Tag() + ":acct:~platform" }

// JournalKey is shard s's journal stream: one entry per transaction.
func JournalKey(s Shard) string { return "gw:" + s.Tag() + ":journal" }

// JournalTxKey marks a posted transaction by its idempotency key, on shard
// s: it holds the journal entry's id, or "!" for a recorded refusal.
func JournalTxKey(s Shard, key string) string { return "gw:" + s.Tag() + ":jtx:" + key }

// SettleDueKey is shard s's index of settlement moves that fall due, scored
// by the time (ms) they do.
func SettleDueKey(s Shard) string { return "gw:" + s.Tag() + ":settle:due" }

// JournalSinceKey holds when (ms) the journal took over from the balances
// kept before it, set once by the migration or the first ledger process.
const JournalSinceKey = "gw:{merchants}:journal:since"
