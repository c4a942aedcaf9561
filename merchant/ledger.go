package merchant

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// What a ledger entry was, as the console names it: the stream's type and
// reference together tell a top-up from a balance payment or a refund.
const (
	LedgerTopUp      = "top_up"      // credited by an operator (gateway merchant credit)
	LedgerPaymentIn  = "payment_in"  // a payer paid this merchant's order from its balance
	LedgerPaymentOut = "payment_out" // this account paid an order from its balance
	LedgerRefundIn   = "refund_in"   // a refund of a balance payment came back to this account
	LedgerRefundOut  = "refund_out"  // this merchant refunded a balance payment
	LedgerReversal   = "reversal"    // a balance payment's debit undone (the transfer failed)
	LedgerOther      = "other"
)

// LedgerEntry is one balance movement, as every script that changes a
// balance appends it to the merchant's ledger stream in the same step.
type LedgerEntry struct {
	ID       string // the stream id: the cursor of the next page
	Kind     string // LedgerTopUp ... LedgerOther
	Currency string
	Amount   schema.Amount // always positive; Credit says which way
	Credit   bool          // true when the balance went up
	Balance  schema.Amount // the balance of Currency after the movement
	Ref      string        // the order or refund id, "" for a top-up
	At       time.Time
}

// MaxLedgerPage bounds one page of Ledger.
const MaxLedgerPage = 200

// Ledger reads appid's ledger newest first: limit entries (default 50, at
// most MaxLedgerPage) older than the entry before ("" for the newest).
func (s *Store) Ledger(ctx context.Context, appid, before string, limit int) ([]LedgerEntry, error) {
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, MaxLedgerPage)
	hi := "+"
	if before != "" {
		if !validStreamID(before) {
			return nil, fmt.Errorf("ledger cursor %q is not a stream id", before)
		}
		hi = "(" + before
	}
	msgs, err := s.rdb.XRevRangeN(ctx, schema.LedgerKey(appid), hi, "-", int64(limit)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read ledger of %s: %w", appid, err)
	}
	out := make([]LedgerEntry, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, ledgerEntry(m))
	}
	return out, nil
}

// validStreamID accepts "ms-seq" of digits, what a page's cursor is.
func validStreamID(id string) bool {
	ms, seq, ok := strings.Cut(id, "-")
	_, e1 := strconv.ParseUint(ms, 10, 64)
	_, e2 := strconv.ParseUint(seq, 10, 64)
	return ok && e1 == nil && e2 == nil
}

func ledgerEntry(m redis.XMessage) LedgerEntry {
	str := func(k string) string { v, _ := m.Values[k].(string); return v }
	num := func(k string) int64 { n, _ := strconv.ParseInt(str(k), 10, 64); return n }
	e := LedgerEntry{ID: m.ID, Currency: str(LedgerCurrency), Amount: schema.Amount(num(LedgerAmount)),
		Balance: schema.Amount(num(LedgerBalance)), Ref: str(LedgerRef)}
	if ms := num(LedgerAt); ms > 0 {
		e.At = time.UnixMilli(ms).UTC()
	}
	refund := schema.IsRefundID(e.Ref)
	switch typ := str(LedgerType); {
	case typ == "credit" && e.Ref == "":
		e.Kind, e.Credit = LedgerTopUp, true
	case typ == "credit" && refund:
		e.Kind, e.Credit = LedgerRefundIn, true
	case typ == "credit":
		e.Kind, e.Credit = LedgerPaymentIn, true
	case typ == "debit" && refund:
		e.Kind = LedgerRefundOut
	case typ == "debit":
		e.Kind = LedgerPaymentOut
	case typ == "refund":
		e.Kind, e.Credit = LedgerReversal, true
	default:
		e.Kind = LedgerOther
	}
	return e
}
