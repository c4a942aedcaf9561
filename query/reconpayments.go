package query

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

// reconLookBack is how long before its day a payment reconciled that day
// may have been created: its provider reference is looked up among the
// orders created from then on.
const reconLookBack = 7 * 24 * time.Hour

// ReconPayments is recon.Payments: channel's payments posted on day (UTC),
// as the journal posted them. The payment took the charge less the cost
// into the receivable and the cost into the channel's cost account, so the
// charged amount is their sum and the fee the cost; the provider's
// reference is the order's.
func (s *Statements) ReconPayments(ctx context.Context, channel string, d time.Time) ([]recon.Payment, error) {
	from := day(d)
	recv, cost := journal.Receivable(channel), journal.Cost(channel)
	q := "SELECT appid, ref, cur, recv, cost, pr FROM (" +
		"SELECT any(appid) AS appid, ref, any(currency) AS cur, sumIf(amt, acct = ?) AS recv, sumIf(amt, acct = ?) AS cost FROM (" +
		"SELECT tx, line, any(appid) AS appid, any(ref) AS ref, any(account) AS acct, any(currency) AS currency, any(amount) AS amt " +
		"FROM journal WHERE at >= ? AND at < ? AND kind = '" + journal.KindPayment + "' AND (account = ? OR account = ?) GROUP BY tx, line" +
		") GROUP BY ref) GLOBAL ANY LEFT JOIN (" +
		"SELECT id AS ref, argMax(provider_ref, version) AS pr FROM orders WHERE created_at >= ? AND created_at < ? GROUP BY id) USING ref " +
		"ORDER BY ref"
	rs, err := s.conn.Query(readCtx(ctx), q, recv, cost, from, from.Add(24*time.Hour), recv, cost, from.Add(-reconLookBack), from.Add(24*time.Hour))
	if err != nil {
		return nil, fmt.Errorf("read channel payments: %w", err)
	}
	defer rs.Close()
	var out []recon.Payment
	for rs.Next() {
		var p recon.Payment
		var rv, c int64
		if err := rs.Scan(&p.AppID, &p.OrderID, &p.Currency, &rv, &c, &p.ProviderRef); err != nil {
			return nil, fmt.Errorf("scan channel payments: %w", err)
		}
		p.Amount, p.Fee = schema.Amount(-(rv + c)), schema.Amount(-c)
		out = append(out, p)
	}
	return out, rs.Err()
}
