package operator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// States of an adjustment.
const (
	AdjPending  = "pending"  // above the threshold: awaiting a second admin
	AdjApproved = "approved" // approved, being posted
	AdjPosted   = "posted"
	AdjRejected = "rejected"
	AdjRefused  = "refused" // approved, but the journal refused it: the balance fell short
)

// AdjustInput is an adjustment as a person gives it: a signed amount
// ("-12.50", "+100", "100"), a currency, a bucket ("" is available) and a
// mandatory reason.
type AdjustInput struct {
	AppID, Amount, Currency, Bucket, Reason string
}

// adjustable are the buckets an operator may adjust: payout_hold belongs
// to payouts in flight.
var adjustable = []string{journal.Available, journal.Pending, journal.Reserve}

// ParseAdjustment checks in without any state (the CLI does before it
// connects): a non-zero amount of at most two decimals, a currency some
// method takes, a bucket an operator may adjust, a reason.
func ParseAdjustment(in AdjustInput) (Adjustment, error) {
	a := Adjustment{AppID: strings.TrimSpace(in.AppID), Currency: strings.ToUpper(strings.TrimSpace(in.Currency)),
		Bucket: strings.ToLower(strings.TrimSpace(in.Bucket))}
	if a.AppID == "" || strings.ContainsAny(a.AppID, "-:") || len(a.AppID) > 40 {
		return Adjustment{}, invalid("an appid is required")
	}
	amt, err := signedAmount(strings.TrimSpace(in.Amount))
	if err != nil {
		return Adjustment{}, err
	}
	a.Amount = amt
	if !schema.KnownCurrency(a.Currency) {
		return Adjustment{}, invalid(fmt.Sprintf("currency %q: no payment method takes it", in.Currency))
	}
	if a.Bucket == "" {
		a.Bucket = journal.Available
	}
	if !contains(adjustable, a.Bucket) {
		return Adjustment{}, invalid(fmt.Sprintf("bucket %q: one of %s", in.Bucket, strings.Join(adjustable, ", ")))
	}
	if a.Reason, err = audit.Text("reason", in.Reason, audit.MaxText); err != nil {
		return Adjustment{}, err
	}
	if a.Reason == "" {
		return Adjustment{}, invalid("a reason is required: it is kept with the entry for ever")
	}
	return a, nil
}

// signedAmount reads "+12.50", "-12.50" or "12.50": never zero, at most
// two decimals (schema.ParseAmount after the sign).
func signedAmount(s string) (schema.Amount, error) {
	neg, digits := false, s
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, digits = s[0] == '-', s[1:] // one sign; ParseAmount refuses another
	}
	v, err := schema.ParseAmount(digits)
	if err != nil {
		return 0, invalid(fmt.Sprintf("amount %q: a non-zero amount with at most two decimals, - for a debit (e.g. -12.50)", s))
	}
	if neg {
		v = -v
	}
	return v, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Adjust moves money into (positive) or out of (negative) one of a
// merchant's buckets against the platform's adjustment account, with the
// person's reason. Up to the threshold it posts at once (the posting and
// its audit entry one step); above it, it is a request another admin
// approves or rejects (Approve, Reject).
func (m *Money) Adjust(ctx context.Context, actor access.Actor, in AdjustInput) (Adjustment, error) {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return Adjustment{}, err
	}
	a, err := ParseAdjustment(in)
	if err != nil {
		return Adjustment{}, err
	}
	acct, err := m.st.Get(ctx, a.AppID)
	if err != nil {
		return Adjustment{}, notFoundMerchant(err)
	}
	if a.ID, err = newAdjustmentID(a.AppID, m.now().UnixMilli()); err != nil {
		return Adjustment{}, err
	}
	a.Maker, a.makerKey, a.Created = By(actor), actorKey(actor), m.now()
	if abs(a.Amount) > m.cfg.ApprovalAbove {
		a.State = AdjPending
		e, err := checked(m.adjEntry(actor, "ledger.adjust_request", a, nil))
		if err != nil {
			return Adjustment{}, err
		}
		return a, m.saveRequest(ctx, a, e)
	}
	e, err := checked(m.adjEntry(actor, "ledger.adjust", a, nil))
	if err != nil {
		return Adjustment{}, err
	}
	a.State = AdjPosted
	if err := m.post(ctx, &a, acct.Terms, e); err != nil {
		return Adjustment{}, err
	}
	if err := m.saveDecided(ctx, a); err != nil {
		// Posted: the journal and the audit log hold it; only the
		// console's list of recent adjustments misses it.
		m.lg.Warn("adjustment posted, its record not saved", "id", a.ID, "err", err)
	}
	return a, nil
}

// post posts a as the transaction adjustment:<id> with e in the same step;
// a debit the merchant's terms do not let go below zero is refused.
func (m *Money) post(ctx context.Context, a *Adjustment, t merchant.Terms, e audit.Entry) error {
	by := a.Maker
	if a.Checker != "" {
		by += ", approved by " + a.Checker
	}
	tx := journal.Tx{Key: "adjustment:" + a.ID, Kind: journal.KindAdjustment, AppID: a.AppID, Ref: a.ID, Memo: a.Reason,
		By: by, At: m.now(), AllowNegative: t.AllowNegative, Postings: []journal.Posting{
			{Account: journal.Adjust, Currency: a.Currency, Amount: -a.Amount},
			{Account: journal.Merchant(a.AppID, a.Bucket), Currency: a.Currency, Amount: a.Amount}}}
	r, err := m.j.PostAudited(ctx, tx, &e)
	if err != nil {
		return err
	}
	if r.Outcome == journal.Refused || r.Outcome == journal.Missing {
		return platform.Errorf(platform.KindInsufficientFunds,
			"the %s %s balance of merchant %s does not cover a debit of %s, and its terms do not let it go below zero",
			a.Bucket, a.Currency, a.AppID, (-a.Amount).String())
	}
	a.Entry = r.EntryID
	return nil
}

// adjEntry is the audit entry of one step of a.
func (m *Money) adjEntry(actor access.Actor, action string, a Adjustment, extra map[string]string) audit.Entry {
	d := map[string]string{"amount": a.Amount.String(), "currency": a.Currency, "bucket": a.Bucket, "ref": a.ID, "reason": a.Reason}
	for k, v := range extra {
		d[k] = v
	}
	return entry(m.now(), actor, action, "adjustment:"+a.ID, a.AppID, d)
}

// newAdjustmentID is "<appid>-<ms base 36>-<random>": the appid names the
// shard the request lives on, the time sorts them.
func newAdjustmentID(appid string, ms int64) (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("adjustment id: %w", err)
	}
	return appid + "-" + strconv.FormatInt(ms, 36) + "-" + hex.EncodeToString(b), nil
}

// actorKey names a person across realms: who made a request, to keep
// them from approving it.
func actorKey(a access.Actor) string { return a.Realm + ":" + a.ID }

func abs(a schema.Amount) schema.Amount {
	if a < 0 {
		return -a
	}
	return a
}
