package schema

import "time"

// NotificationRecord is a provider notification as kept for support: its
// fields without secrets, what we decided and what it changed.
type NotificationRecord struct {
	At       time.Time `json:"at"`
	Provider string    `json:"provider"`
	// Channel is the provider account (channel id) that verified the
	// notification, or that an initialisation attempt went to; operators
	// see it, merchants never do.
	Channel string            `json:"channel,omitempty"`
	Mode    string            `json:"mode"`
	OrderID string            `json:"orderId,omitempty"`
	Ref     string            `json:"ref,omitempty"`
	Outcome string            `json:"outcome,omitempty"`
	Paid    string            `json:"paid,omitempty"` // amount and currency the provider reported
	Verdict string            `json:"verdict"`
	Detail  string            `json:"detail,omitempty"`
	Moved   bool              `json:"moved"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// Verdicts of a notification.
const (
	VerdictApplied          = "applied"           // it moved the order
	VerdictNoChange         = "no_change"         // verified; the order already was so (a repeat) or nothing to do
	VerdictPending          = "pending"           // the provider is still waiting
	VerdictIgnored          = "ignored"           // verified, but the order can no longer take it (failing a paid order)
	VerdictPartial          = "partial_payment"   // money arrived, not all of it: never pays
	VerdictAmountMismatch   = "amount_mismatch"   // paid, but not the amount charged
	VerdictCurrencyMismatch = "currency_mismatch" // paid, but in another currency
	VerdictRefMismatch      = "ref_mismatch"      // a payment of another charge than the one made for the order
	// VerdictChannelMismatch: verified with another channel's (provider
	// account's) secret than the order's; refused, the order untouched.
	VerdictChannelMismatch = "channel_mismatch"
	VerdictRefunded        = "refunded"       // recorded; refunds are not an order status
	VerdictRefundRefused   = "refund_refused" // an operator's refund of a mismatch the provider refused (timeline only)
	VerdictBadSignature    = "bad_signature"
	VerdictMalformed       = "malformed"
	VerdictUnverified      = "unverified" // the provider did not confirm it when asked
	VerdictUnknownOrder    = "unknown_order"
	VerdictUnavailable     = "provider_unavailable"
	VerdictError           = "error"
	// VerdictInitFailed is an initialisation attempt on a channel that
	// failed (Mode "init"): the order's timeline shows the failover.
	VerdictInitFailed = "init_failed"
)

// ModeInit is the Mode of an initialisation attempt's record.
const ModeInit = "init"
