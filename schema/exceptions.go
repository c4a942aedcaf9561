package schema

// Exceptions (the operator console's queue): payments that need a person.
// Most are found where they are already kept (webhook dead letters, the
// pending refund index, the USDT review queues, the refused notifications
// list); only a provider notification that went wrong on one of our orders
// had no index, so the notification log adds the order to its shard's
// ExceptionsKey in the same MULTI as the record.

// Exception kinds.
const (
	ExceptionMismatch       = "mismatch"             // partial, wrong amount or currency, another charge, paid after expiry
	ExceptionRefused        = "notification_refused" // a notification we refused (bad signature, unverified, unknown order...)
	ExceptionWebhookDead    = "webhook_dead"         // a merchant webhook that ran out of retries
	ExceptionRefundStuck    = "refund_stuck"         // a refund pending longer than it should
	ExceptionUSDTBackend    = "usdt_backend"         // a USDT review that cannot reach its chain or exchange
	exceptionOutcomePaid    = "paid"
	exceptionIgnoredVerdict = VerdictIgnored
)

// ExceptionsKey indexes the shard's orders whose provider notifications
// need a person: member the order id, score the last such notification's
// time (ms).
func ExceptionsKey(s Shard) string { return "gw:" + s.Tag() + ":exc:notif" }

// ExceptionHandledKey records that an operator handled one exception (by
// whom, when, with what note), under tag: the order's shard's, or AuditTag
// for one without an order, so the record and its audit entry are one
// script.
func ExceptionHandledKey(tag, kind, id string) string {
	return "gw:" + tag + ":exc:h:" + kind + ":" + id
}

// Exception is the kind of exception a kept notification is, or "" when it
// needs nobody: a verified payment that did not pay its order (partial,
// wrong amount or currency, another charge, or a payment of an order that
// had already expired or closed), or a notification we refused.
func (r *NotificationRecord) Exception() string {
	switch r.Verdict {
	case VerdictPartial, VerdictAmountMismatch, VerdictCurrencyMismatch, VerdictRefMismatch:
		return ExceptionMismatch
	case exceptionIgnoredVerdict:
		if r.Outcome == exceptionOutcomePaid {
			return ExceptionMismatch
		}
	case VerdictBadSignature, VerdictChannelMismatch, VerdictMalformed, VerdictUnverified, VerdictUnknownOrder, VerdictUnavailable, VerdictError:
		return ExceptionRefused
	}
	return ""
}
