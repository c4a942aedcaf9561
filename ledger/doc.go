// Package ledger is the gateway's ledger role: it posts the money of what
// the event streams say happened, exactly once, and settles it when due.
//
// The Poster reads every shard's event stream in the consumer group
// "ledger" (schema.GroupLedger) and posts each paid order's payment and each
// finished refund's debit or reversal to the journal (package journal)
// before it acknowledges the entry: a process that dies between the two
// has its entries delivered again, and the journal's idempotency keys turn
// the second posting into a replay that moves nothing. Several ledger
// processes share the group; one that dies leaves its entries to the others
// (XAUTOCLAIM once idle).
//
// The Settler moves each payment's net from pending to available when its
// merchant's terms say it is due, from the due index the payment's posting
// filled (schema.SettleDueKey); a refund that took the pending money first
// makes the settlement smaller, never refused.
//
// docs/ledger.md is the operator's guide: the accounts, the role, the
// metrics, and what to do on lag or a refused posting.
package ledger
