package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// StatementDay is one UTC day of a merchant's money in one currency:
// Closing = Opening + Payments + Adjustments − Fees − Refunds − Payouts,
// and Opening is the day before's Closing. Payments and refunds are gross
// (before the fee); Fees is every fee of the day, less fees given back.
// Settlements move money between the merchant's buckets and change none
// of these.
type StatementDay struct {
	Day         time.Time
	Currency    string
	Opening     schema.Amount
	Payments    schema.Amount
	Fees        schema.Amount
	Refunds     schema.Amount
	Payouts     schema.Amount
	Adjustments schema.Amount
	Closing     schema.Amount
}

// In is what came into the balance, Out what left it.
func (d StatementDay) In() schema.Amount  { return d.Payments + d.Adjustments }
func (d StatementDay) Out() schema.Amount { return d.Fees + d.Refunds + d.Payouts }

// MaxStatementRange bounds a statement's from..to.
const MaxStatementRange = 400 * 24 * time.Hour

// Statement is appid's days from from to to (UTC days; from's day to the
// day before to's, to exclusive), one row per currency and day that moved
// money, in currency then day order. It reads the daily table the
// projection keeps (migration 0034), each day's latest recomputation.
func (s *Statements) Statement(ctx context.Context, appid string, from, to time.Time) ([]StatementDay, error) {
	from, to = day(from), day(to)
	if appid == "" || !to.After(from) || to.Sub(from) > MaxStatementRange {
		return nil, errors.New("statement: a merchant and a range of 1 to 400 days")
	}
	opening, err := s.opening(ctx, appid, from)
	if err != nil {
		return nil, err
	}
	q := "SELECT toInt64(day) * 86400 AS d, currency, kind, argMax(merchant, version), argMax(fees, version) " +
		"FROM journal_days WHERE appid = ? AND day >= ? AND day < ? GROUP BY day, currency, kind ORDER BY currency, d"
	rs, err := s.conn.Query(readCtx(ctx), q, appid, uint32(from.Unix()/86400), uint32(to.Unix()/86400))
	if err != nil {
		return nil, fmt.Errorf("read statement: %w", err)
	}
	defer rs.Close()
	var days []StatementDay
	idx := map[string]int{} // currency and day → position in days
	for rs.Next() {
		var d, m, f int64
		var cur, kind string
		if err := rs.Scan(&d, &cur, &kind, &m, &f); err != nil {
			return nil, fmt.Errorf("scan statement: %w", err)
		}
		k := cur + "|" + fmt.Sprint(d)
		i, ok := idx[k]
		if !ok {
			i = len(days)
			idx[k] = i
			days = append(days, StatementDay{Day: time.Unix(d, 0).UTC(), Currency: cur})
		}
		classify(&days[i], kind, schema.Amount(m), schema.Amount(f))
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	for cur, n := range opening {
		if !moved(days, cur) && n != 0 { // a balance the range did not touch still shows
			days = append(days, StatementDay{Day: from, Currency: cur})
		}
	}
	sortDays(days)
	chain(days, opening)
	return days, nil
}

// classify adds one kind's postings of a day: m is what they changed the
// merchant's buckets by, f what they paid the platform in fees.
func classify(d *StatementDay, kind string, m, f schema.Amount) {
	gross := m + f
	d.Fees += f
	switch kind {
	case journal.KindPayment:
		d.Payments += gross
	case journal.KindRefund, journal.KindRefundReversal:
		d.Refunds -= gross
	case journal.KindBalanceDebit, journal.KindBalanceRevert, journal.KindBalanceOrder, "payout", "payout_return":
		d.Payouts -= gross
	default: // top-ups, adjustments, opening balances and any kind to come
		d.Adjustments += gross
	}
}

// chain sets each day's opening and closing, from the opening of each
// currency's first day.
func chain(days []StatementDay, opening map[string]schema.Amount) {
	for i := range days {
		d := &days[i]
		d.Opening = opening[d.Currency]
		d.Closing = d.Opening + d.In() - d.Out()
		opening[d.Currency] = d.Closing
	}
}

// opening is appid's total balance per currency before from: the sum of
// every day before (each day's postings to its buckets).
func (s *Statements) opening(ctx context.Context, appid string, from time.Time) (map[string]schema.Amount, error) {
	q := "SELECT currency, sum(m) FROM (SELECT currency, argMax(merchant, version) AS m FROM journal_days " +
		"WHERE appid = ? AND day < ? GROUP BY day, currency, kind) GROUP BY currency"
	rs, err := s.conn.Query(readCtx(ctx), q, appid, uint32(from.Unix()/86400))
	if err != nil {
		return nil, fmt.Errorf("read opening balance: %w", err)
	}
	defer rs.Close()
	out := map[string]schema.Amount{}
	for rs.Next() {
		var cur string
		var n int64
		if err := rs.Scan(&cur, &n); err != nil {
			return nil, fmt.Errorf("scan opening balance: %w", err)
		}
		out[cur] = schema.Amount(n)
	}
	return out, rs.Err()
}

func moved(days []StatementDay, cur string) bool {
	for _, d := range days {
		if d.Currency == cur {
			return true
		}
	}
	return false
}

// day is t's UTC day.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
