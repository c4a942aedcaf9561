package journal

import (
	"time"

	"github.com/paygate/gateway/schema"
)

// A payout's journal transactions, keyed by the payout's id: its hold when
// asked for, then either its payment when sent or its release when
// rejected or failed. The payment and the release each require the hold,
// and share nothing else, so a payout can never be both sent and returned
// only if its state machine allows one of them, which its scripts ensure.
const (
	KindPayoutHold    = "payout_hold"
	KindPayoutPaid    = "payout_paid"
	KindPayoutRelease = "payout_release"
)

// PayoutHoldTx moves a payout's amount and fee from available to
// payout_hold. It never lets available go below zero, whatever the
// merchant's terms: a payout spends money the merchant has.
func PayoutHoldTx(appid, id, cur string, amount, fee schema.Amount, at time.Time) Tx {
	held := amount + fee
	return Tx{Key: KindPayoutHold + ":" + id, Kind: KindPayoutHold, AppID: appid, Ref: id, At: at,
		Postings: []Posting{line(Merchant(appid, Available), cur, -held), line(Merchant(appid, PayoutHold), cur, held)}}
}

// PayoutReleaseTx gives a rejected or failed payout's hold back to
// available.
func PayoutReleaseTx(appid, id, cur string, amount, fee schema.Amount, at time.Time) Tx {
	held := amount + fee
	return Tx{Key: KindPayoutRelease + ":" + id, Kind: KindPayoutRelease, AppID: appid, Ref: id, At: at,
		Requires: KindPayoutHold + ":" + id,
		Postings: []Posting{line(Merchant(appid, PayoutHold), cur, -held), line(Merchant(appid, Available), cur, held)}}
}

// PayoutPaidTx takes a sent payout out of payout_hold: the fee to
// platform:fees, the amount to payouts:in_transit, the money on its way
// out of the platform's accounts until a statement shows it left.
func PayoutPaidTx(appid, id, cur string, amount, fee schema.Amount, at time.Time) Tx {
	tx := Tx{Key: KindPayoutPaid + ":" + id, Kind: KindPayoutPaid, AppID: appid, Ref: id, At: at,
		Requires: KindPayoutHold + ":" + id,
		Postings: []Posting{line(Merchant(appid, PayoutHold), cur, -(amount + fee)), line(InTransit, cur, amount)}}
	if fee != 0 {
		tx.Postings = append(tx.Postings, line(Fees, cur, fee))
	}
	return tx
}
