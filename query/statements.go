package query

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Statements reads the journal's copy in ClickHouse (migration 0033,
// docs/statements.md): a merchant's transactions, its daily statement, the
// platform's fee income. Every merchant read names the merchant's appid in
// its WHERE, taken from the caller's authenticated account, never from the
// request; every read folds duplicate rows (GROUP BY tx, line) so a batch
// the projection inserted twice counts once.
type Statements struct {
	conn driver.Conn
	now  func() time.Time
}

// NewStatements wraps a connection to the migrated database.
func NewStatements(conn driver.Conn) *Statements { return &Statements{conn: conn, now: time.Now} }

// TxRow is one transaction of a merchant in one currency: Net is what it
// changed the merchant's total balance by, Fee what went to the platform,
// Gross their sum (a payment's amount, a refund's amount as a negative).
// A settlement moves money between the merchant's buckets: its Net is zero
// and Settled is what it made available.
type TxRow struct {
	Tx       string
	Kind     string
	Ref      string
	At       time.Time
	Currency string
	Gross    schema.Amount
	Fee      schema.Amount
	Net      schema.Amount
	Settled  schema.Amount
}

// TxFilter selects a page of a merchant's transactions, newest first.
type TxFilter struct {
	AppID  string
	Kinds  []string  // none: every kind
	From   time.Time // inclusive; zero: no bound
	To     time.Time // exclusive; zero: no bound
	Cursor string    // TxPage.Next of the page before; "" for the newest
	Limit  int
}

// TxPage is one page; Next is the cursor of the following (older) page, ""
// on the last.
type TxPage struct {
	Rows []TxRow
	Next string
}

// MaxTxLimit bounds a page.
const MaxTxLimit = 500

// txCursor is the position after a row: its time and key, newest first.
type txCursor struct {
	ms int64
	tx string
}

func (c txCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.ms, 10) + "|" + c.tx))
}

// parseTxCursor reads a cursor; a malformed one is the caller's mistake.
func parseTxCursor(s string) (txCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	ms, tx, ok := strings.Cut(string(b), "|")
	n, perr := strconv.ParseInt(ms, 10, 64)
	if err != nil || !ok || perr != nil || tx == "" {
		return txCursor{}, platform.Errorf(platform.KindInvalidParameter, "cursor is not one this API gave")
	}
	return txCursor{ms: n, tx: tx}, nil
}

// moneyRows is the filter every merchant read applies: the merchant's
// buckets and the fee account, the only postings its balance and its fees
// are made of.
const moneyRows = "(account = '" + journal.Fees + "' OR account LIKE 'merchant:%')"

// dedup is a merchant's postings matching where, one row per (tx, line)
// however often the projection inserted it, as columns k, r, ms0, acct,
// cur and amt (aliases apart from the table's columns, which ClickHouse
// would otherwise read the WHERE's names as).
func dedup(where string) string {
	return "SELECT tx, line, any(kind) AS k, any(ref) AS r, any(at_ms) AS ms0, any(account) AS acct, " +
		"any(currency) AS cur, any(amount) AS amt FROM journal WHERE " + where + " GROUP BY tx, line"
}

// txWindows are how far back a page is looked for before all time: the
// sort key (appid, at, ...) makes a window cost what it holds.
var txWindows = []time.Duration{time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 31 * 24 * time.Hour, 366 * 24 * time.Hour}

// Transactions is a page of f.AppID's transactions, newest first.
func (s *Statements) Transactions(ctx context.Context, f TxFilter) (TxPage, error) {
	if f.AppID == "" {
		return TxPage{}, errors.New("transactions: no merchant")
	}
	if f.Limit <= 0 || f.Limit > MaxTxLimit {
		f.Limit = MaxTxLimit
	}
	var cur *txCursor
	if f.Cursor != "" {
		c, err := parseTxCursor(f.Cursor)
		if err != nil {
			return TxPage{}, err
		}
		cur = &c
	}
	upper := f.To
	if cur != nil && (upper.IsZero() || time.UnixMilli(cur.ms+1000).Before(upper)) {
		upper = time.UnixMilli(cur.ms + 1000)
	}
	if upper.IsZero() {
		upper = s.now().Add(24 * time.Hour)
	}
	for _, w := range append(txWindows, 0) {
		lo := f.From
		if w > 0 && (lo.IsZero() || upper.Add(-w).After(lo)) {
			lo = upper.Add(-w)
		}
		rows, err := s.txWindow(ctx, f, cur, lo, upper)
		if err != nil {
			return TxPage{}, err
		}
		if len(rows) > f.Limit || w == 0 || (!f.From.IsZero() && !lo.After(f.From)) {
			return page(rows, f.Limit), nil
		}
	}
	return TxPage{}, nil
}

func page(rows []TxRow, limit int) TxPage {
	if len(rows) <= limit {
		return TxPage{Rows: rows}
	}
	rows = rows[:limit]
	last := rows[len(rows)-1]
	return TxPage{Rows: rows, Next: txCursor{ms: last.At.UnixMilli(), tx: last.Tx + "\x00" + last.Currency}.String()}
}

func (s *Statements) txWindow(ctx context.Context, f TxFilter, cur *txCursor, lo, hi time.Time) ([]TxRow, error) {
	conds, args := []string{"appid = ?", moneyRows}, []any{f.AppID}
	if !lo.IsZero() {
		conds, args = append(conds, "at >= ?", "at_ms >= ?"), append(args, lo.UTC().Truncate(time.Second), uint64(lo.UnixMilli()))
	}
	conds, args = append(conds, "at <= ?", "at_ms < ?"), append(args, hi.UTC().Truncate(time.Second), uint64(hi.UnixMilli()))
	if len(f.Kinds) > 0 {
		conds = append(conds, "kind IN (?"+strings.Repeat(", ?", len(f.Kinds)-1)+")")
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	having := ""
	if cur != nil {
		tx, ccy, _ := strings.Cut(cur.tx, "\x00")
		having = " HAVING ms < ? OR (ms = ? AND (tx < ? OR (tx = ? AND cur < ?)))"
		args = append(args, cur.ms, cur.ms, tx, tx, ccy)
	}
	q := "SELECT tx, any(k), any(r), toInt64(max(ms0)) AS ms, cur, " +
		"sumIf(amt, acct LIKE 'merchant:%'), sumIf(amt, acct = '" + journal.Fees + "'), " +
		"sumIf(amt, acct LIKE '%:" + journal.Available + "' AND amt > 0) " +
		"FROM (" + dedup(strings.Join(conds, " AND ")) + ") GROUP BY tx, cur" + having +
		" ORDER BY ms DESC, tx DESC, cur DESC LIMIT " + strconv.Itoa(f.Limit+1)
	rs, err := s.conn.Query(readCtx(ctx), q, args...)
	if err != nil {
		return nil, fmt.Errorf("read transactions: %w", err)
	}
	defer rs.Close()
	var out []TxRow
	for rs.Next() {
		var r TxRow
		var ms, net, fee, settled int64
		if err := rs.Scan(&r.Tx, &r.Kind, &r.Ref, &ms, &r.Currency, &net, &fee, &settled); err != nil {
			return nil, fmt.Errorf("scan transaction: %w", err)
		}
		r.At, r.Net, r.Fee, r.Gross = time.UnixMilli(ms).UTC(), schema.Amount(net), schema.Amount(fee), schema.Amount(net+fee)
		if r.Kind == journal.KindSettlement || r.Kind == journal.KindReserveRelease {
			r.Settled = schema.Amount(settled)
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// sortDays orders a statement by currency, then day.
func sortDays(days []StatementDay) {
	sort.Slice(days, func(i, j int) bool {
		if days[i].Currency != days[j].Currency {
			return days[i].Currency < days[j].Currency
		}
		return days[i].Day.Before(days[j].Day)
	})
}
