package journal

import (
	"fmt"
	"strings"
)

// Buckets of a merchant's money.
const (
	Pending    = "pending"     // paid, not yet settled
	Available  = "available"   // settled: spendable, refundable, payable out
	Reserve    = "reserve"     // a rolling reserve held back at settlement
	PayoutHold = "payout_hold" // asked to be paid out, not yet sent
)

// Buckets lists a merchant's buckets in the order balances show them.
var Buckets = []string{Pending, Available, Reserve, PayoutHold}

// Platform accounts.
const (
	Fees      = "platform:fees"
	FX        = "platform:fx"
	Transit   = "platform:transit"
	Spent     = "platform:spent"
	InTransit = "payouts:in_transit"
	TopUp     = "topup"
	Adjust    = "adjustment"
	Opening   = "opening"
	// Settled is the money providers paid out to the platform, as their
	// reconciled statements say: a receivable falls by what lands here.
	Settled = "platform:settled"
)

// spendBucket is the pseudo-bucket of a posting that takes from available,
// then pending (a refund), resolved by the script into real postings.
const spendBucket = "spend"

// Merchant is a merchant's account of bucket b.
func Merchant(appid, b string) string { return "merchant:" + appid + ":" + b }

// Spend is the posting account that debits appid's available balance first,
// then its pending balance, as a refund does.
func Spend(appid string) string { return Merchant(appid, spendBucket) }

// Receivable is what provider account (channel) id owes the platform.
func Receivable(channel string) string { return "channel:" + channel + ":receivable" }

// Cost is what provider account id charged the platform.
func Cost(channel string) string { return "channel:" + channel + ":cost" }

// validName keeps account names, currencies and keys to characters the
// journal's encoding never confuses with its separators.
func validName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == ':' || c == '_' || c == '-' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// checkAccount refuses an account a transaction of appid may not post to:
// a malformed name, another merchant's account, an unknown bucket.
func checkAccount(appid, acct string) error {
	if !validName(acct) {
		return fmt.Errorf("account %q is not a valid name", acct)
	}
	rest, ok := strings.CutPrefix(acct, "merchant:")
	if !ok {
		return nil
	}
	id, b, _ := strings.Cut(rest, ":")
	if id != appid {
		return fmt.Errorf("account %s is not merchant %s's", acct, appid)
	}
	switch b {
	case Pending, Available, Reserve, PayoutHold, spendBucket:
		return nil
	}
	return fmt.Errorf("account %s: no bucket %q", acct, b)
}
