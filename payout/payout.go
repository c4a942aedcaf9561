package payout

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// State is where a payout is on its way.
type State string

const (
	Requested State = "requested" // held, awaiting an operator's review
	Approved  State = "approved"  // to be sent
	Sending   State = "sending"   // a sender holds its lease and is sending
	Paid      State = "paid"      // sent: final
	Rejected  State = "rejected"  // refused by an operator, money back: final
	Failed    State = "failed"    // the sending failed, money back: final
)

// Final says whether s ends the payout.
func (s State) Final() bool { return s == Paid || s == Rejected || s == Failed }

// Payout is one request to pay out a merchant's money.
type Payout struct {
	ID, AppID     string
	Destination   string // the destination's id
	Kind          Kind   // the destination's kind when asked for
	Currency      string
	Amount, Fee   schema.Amount // the fee is the platform's, held and taken with the amount
	State         State
	RequestedBy   string // who asked: "user:<id>" of a console user, "api" for the signed API
	Reviewer      string // who approved or rejected ("auto" below the merchant's threshold)
	reviewerKey   string
	Reason        string // a rejection's or a failure's reason
	TxHash        string // a USDT payout's transaction
	BankRef       string // a bank payout's reference, as the operator recorded it
	Created       time.Time
	Decided, Done time.Time
	lease         string // the sender's lease token while Sending
	leaseUntil    string // when that lease ends (ms)
}

// Held is what the payout took from available: its amount and its fee.
func (p Payout) Held() schema.Amount { return p.Amount + p.Fee }

// Reference is the payout's unique reference given to the rail (the
// exchange's client id, a bank transfer's memo), by which a sender that
// crashed finds whether its transfer left before it tries again.
func (p Payout) Reference() string { return "PO" + strings.ReplaceAll(p.ID, "-", "") }

// Stored field names of a payout's hash.
const (
	fAppID, fDest, fKind, fCur, fAmt, fFee = "appid", "dest", "kind", "cur", "amt", "fee"
	fState, fBy, fRev, fRevKey, fReason    = "st", "by", "rev", "rkey", "reason"
	fTx, fBank, fAt, fDecided, fDone       = "tx", "bank", "at", "dat", "done"
	fLease, fLeaseUntil                    = "lease", "lease_until"
)

func (p Payout) fields() []any {
	f := []any{fAppID, p.AppID, fDest, p.Destination, fKind, string(p.Kind), fCur, p.Currency,
		fAmt, int64(p.Amount), fFee, int64(p.Fee), fState, string(p.State), fBy, p.RequestedBy,
		fAt, p.Created.UnixMilli()}
	if p.Reviewer != "" {
		f = append(f, fRev, p.Reviewer, fRevKey, p.reviewerKey, fDecided, p.Decided.UnixMilli())
	}
	return f
}

func payoutFrom(id string, h map[string]string) Payout {
	n := func(k string) int64 { v, _ := strconv.ParseInt(h[k], 10, 64); return v }
	ms := func(k string) time.Time {
		if v := n(k); v != 0 {
			return time.UnixMilli(v).UTC()
		}
		return time.Time{}
	}
	return Payout{ID: id, AppID: h[fAppID], Destination: h[fDest], Kind: Kind(h[fKind]), Currency: h[fCur],
		Amount: schema.Amount(n(fAmt)), Fee: schema.Amount(n(fFee)), State: State(h[fState]), RequestedBy: h[fBy],
		Reviewer: h[fRev], reviewerKey: h[fRevKey], Reason: h[fReason], TxHash: h[fTx], BankRef: h[fBank],
		Created: ms(fAt), Decided: ms(fDecided), Done: ms(fDone), lease: h[fLease], leaseUntil: h[fLeaseUntil]}
}

// newID is a payout id: the merchant's appid (its home shard, without an
// index), the time, and 64 random bits, so ids sort by time per merchant
// and cannot be guessed.
func newID(appid string, at time.Time) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return appid + "-" + strconv.FormatInt(at.UnixMilli(), 36) + "-" + hex.EncodeToString(b[:])
}

// shardOf is the home shard of payout (or destination) id's merchant.
func shardOf(id string) (schema.Shard, string, bool) {
	appid, _, ok := strings.Cut(id, "-")
	if !ok || appid == "" || len(id) > 80 {
		return 0, "", false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return 0, "", false
		}
	}
	return schema.HomeShard(appid), appid, true
}
