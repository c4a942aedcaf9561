package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
	"github.com/redis/go-redis/v9"
)

// Accounts is where the merchants' terms come from: merchant.Directory,
// the process's cache of accounts.
type Accounts interface {
	Lookup(ctx context.Context, appid string) (*merchant.Account, error)
}

// errInvalid marks an event that can never become a transaction (a fee it
// cannot read): retrying would not help, so it is counted, logged and
// acknowledged.
var errInvalid = errors.New("event cannot be posted")

// txOf is the transaction an event asks for; ok is false for an event that
// moves no money (or whose money the command side posts itself).
func txOf(ctx context.Context, ev *schema.Event, acc Accounts, since time.Time) (tx journal.Tx, ok bool, err error) {
	o := &ev.Order
	if beforeJournal(ev, since) {
		return journal.Tx{}, false, nil
	}
	switch {
	case ev.Type == schema.EventPaid:
		// An own-balance order is created paid, its only event version 1,
		// and posted by the create's own script.
		if o.PaidWithBalance && ev.Version == 1 {
			return journal.Tx{}, false, nil
		}
	case ev.Type == schema.EventRefund && ev.Refund != nil && ev.Refund.Status.Final():
	default:
		return journal.Tx{}, false, nil
	}
	t, err := termsOf(ctx, acc, o.AppID)
	if err != nil {
		return journal.Tx{}, false, err
	}
	if ev.Type == schema.EventPaid {
		source, instant := journal.Source(o), false
		if o.PaidWithBalance {
			source, instant = journal.Transit, true
		}
		tx, err = journal.PaymentTx(o, t, source, instant)
	} else {
		tx, err = refundTx(o, ev.Refund, t)
	}
	if err != nil {
		return journal.Tx{}, false, fmt.Errorf("%w: %w", errInvalid, err)
	}
	return tx, true, nil
}

// refundTx is a finished refund's posting: the debit of a succeeded one (the
// command side posted it first, so normally a replay), the reversal of a
// failed one (missing when its debit was never posted).
func refundTx(o *schema.Order, r *schema.Refund, t merchant.Terms) (journal.Tx, error) {
	source := journal.Source(o)
	if r.Kind == schema.RefundKindBalance {
		source = journal.Transit
		if r.Payer == r.Merchant {
			source = journal.Spent
		}
	}
	if r.Status == schema.RefundSucceeded {
		return journal.RefundTx(o, r, t, source)
	}
	return journal.RefundReversalTx(o, r, t, source)
}

// termsOf is the merchant's terms; a merchant that no longer exists is
// posted under the default terms rather than not at all.
func termsOf(ctx context.Context, acc Accounts, appid string) (merchant.Terms, error) {
	a, err := acc.Lookup(ctx, appid)
	switch {
	case errors.Is(err, merchant.ErrNotFound):
		return merchant.DefaultTerms(), nil
	case err != nil:
		return merchant.Terms{}, fmt.Errorf("read terms of %s: %w", appid, err)
	}
	return a.Terms, nil
}

// beforeJournal reports a balance movement that ended before the journal
// took over: the old balances it moved are in the opening entries.
func beforeJournal(ev *schema.Event, since time.Time) bool {
	switch {
	case since.IsZero():
		return false
	case ev.Type == schema.EventPaid && ev.Order.PaidWithBalance:
		return ev.At.Before(since)
	case ev.Type == schema.EventRefund && ev.Refund != nil && ev.Refund.Kind == schema.RefundKindBalance:
		return ev.Refund.UpdatedAt().Before(since)
	}
	return false
}

// JournalSince is when the journal took over from the balances of before
// it: the first caller (the migration or a ledger process) records now.
func JournalSince(ctx context.Context, rdb redis.UniversalClient, now time.Time) (time.Time, error) {
	if err := rdb.SetNX(ctx, schema.JournalSinceKey, now.UnixMilli(), 0).Err(); err != nil {
		return time.Time{}, fmt.Errorf("record when the journal began: %w", err)
	}
	ms, err := rdb.Get(ctx, schema.JournalSinceKey).Int64()
	if err != nil {
		return time.Time{}, fmt.Errorf("read when the journal began: %w", err)
	}
	return time.UnixMilli(ms).UTC(), nil
}
