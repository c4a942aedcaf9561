package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// IncomeRow is the platform's fee income of one UTC day, payment method and
// currency: the fees of the day's payments, less fees given back by its
// refunds (Method "" for those: a refund's ref is the refund, not the
// order).
type IncomeRow struct {
	Day      time.Time
	Kind     string // payment, refund, ...
	Method   string
	Currency string
	Fees     schema.Amount
	Count    uint64
}

// incomeLookBack is how long before the range's start an order paid in the
// range may have been created: payments are looked up among the orders
// created from then on.
const incomeLookBack = 31 * 24 * time.Hour

// FeeIncome is the platform's fee income from from to to (UTC days, to
// exclusive), every merchant's, by day, kind, payment method and currency.
// A payment's ref is its order, whose method the orders table holds.
func (s *Statements) FeeIncome(ctx context.Context, from, to time.Time) ([]IncomeRow, error) {
	from, to = day(from), day(to)
	if !to.After(from) || to.Sub(from) > MaxStatementRange {
		return nil, errors.New("fee income: a range of 1 to 400 days")
	}
	q := "SELECT toInt64(intDiv(ms0, 86400000) * 86400) AS d, k, if(k = '" + journal.KindPayment + "', om, '') AS m, " +
		"cur, sum(amt), count() FROM (" +
		"SELECT tx, line, any(kind) AS k, any(ref) AS ref, any(at_ms) AS ms0, any(currency) AS cur, any(amount) AS amt " +
		"FROM journal WHERE at >= ? AND at < ? AND account = '" + journal.Fees + "' GROUP BY tx, line" +
		") GLOBAL ANY LEFT JOIN (SELECT id AS ref, any(method) AS om FROM orders WHERE created_at >= ? AND created_at < ? GROUP BY id) USING ref " +
		"GROUP BY d, k, m, cur ORDER BY d, k, m, cur"
	rs, err := s.conn.Query(readCtx(ctx), q, from, to, from.Add(-incomeLookBack), to)
	if err != nil {
		return nil, fmt.Errorf("read fee income: %w", err)
	}
	defer rs.Close()
	var out []IncomeRow
	for rs.Next() {
		var r IncomeRow
		var d, n int64
		if err := rs.Scan(&d, &r.Kind, &r.Method, &r.Currency, &n, &r.Count); err != nil {
			return nil, fmt.Errorf("scan fee income: %w", err)
		}
		r.Day, r.Fees = time.Unix(d, 0).UTC(), schema.Amount(n)
		out = append(out, r)
	}
	return out, rs.Err()
}
