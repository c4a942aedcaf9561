package query

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

// BenchmarkStatementMonth times a merchant's month statement (30 days,
// daily, per currency) over GATEWAY_BENCH_STATEMENT_ORDERS paid orders of
// that month (default 1,000,000), each a payment with a fee and its
// settlement (five postings), beside a tenth as many orders of 100 other
// merchants, and the newest page of its transactions; p50/p99 in ms.
//
//	make bench-statements
func BenchmarkStatementMonth(b *testing.B) {
	ch, orders := statementBenchData(b)
	s := NewStatements(ch)
	ctx := context.Background()
	b.Run("transactions-newest-page", func(b *testing.B) {
		// The month's last day as now: the newest page's first window
		// (a day) holds about 33,000 of the merchant's transactions.
		s := &Statements{conn: ch, now: func() time.Time { return benchMonth.AddDate(0, 1, 0).Add(-time.Hour) }}
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			p, err := s.Transactions(ctx, TxFilter{AppID: "big", Limit: 50})
			if err != nil || len(p.Rows) != 50 {
				b.Fatalf("transactions: %d rows, %v", len(p.Rows), err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	b.Run("month-statement", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			days, err := s.Statement(ctx, "big", benchMonth, benchMonth.AddDate(0, 1, 0))
			if err != nil || len(days) != 30 {
				b.Fatalf("statement: %d days, %v", len(days), err)
			}
			var paid schema.Amount
			for _, d := range days {
				paid += d.Payments
			}
			if paid != schema.Amount(orders)*100_00 {
				b.Fatalf("statement: %d paid, want %d", paid, orders*100_00)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
}

var benchMonth = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

// statementBenchData loads the postings into the database bench_statements
// once (again when their number differs) and opens it.
func statementBenchData(b *testing.B) (driver.Conn, int) {
	b.Helper()
	orders := envInt("GATEWAY_BENCH_STATEMENT_ORDERS", 1_000_000)
	ch := migratedClickHouse(b, "clickhouse://"+testenv.ClickHouseAddr(b)+"/bench_statements")
	ctx := context.Background()
	var have uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM journal WHERE appid = 'big'").Scan(&have); err != nil {
		b.Fatal(err)
	}
	if int(have) == orders*5 && os.Getenv("GATEWAY_BENCH_RELOAD") == "" {
		return ch, orders
	}
	_ = ch.Exec(ctx, "TRUNCATE TABLE journal")
	_ = ch.Exec(ctx, "TRUNCATE TABLE journal_days")
	start := time.Now()
	loadStatementRows(b, ch, "big", orders)
	for m := range 100 {
		loadStatementRows(b, ch, fmt.Sprintf("m%03d", m), orders/1000)
	}
	// The projection recomputes the days of each batch it inserts; the
	// bench, loading in bulk, recomputes each merchant's month once.
	var days []projector.DayKey
	for d := range 31 {
		days = append(days, projector.DayKey{AppID: "big", Day: benchMonth.Unix()/86400 + int64(d)})
		for m := range 100 {
			days = append(days, projector.DayKey{AppID: fmt.Sprintf("m%03d", m), Day: benchMonth.Unix()/86400 + int64(d)})
		}
	}
	if err := projector.RollDays(ctx, ch, days, uint64(time.Now().UnixNano())); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d orders' postings in %v", orders+orders/10, time.Since(start).Round(time.Millisecond))
	return ch, orders
}

// loadStatementRows writes n payments of 100.00 USD with a 2.90%+0.30 fee
// spread over benchMonth, each settled a day later (the last day's in the
// next month), in batches.
func loadStatementRows(b *testing.B, ch driver.Conn, appid string, n int) {
	b.Helper()
	step := 30 * 24 * time.Hour / time.Duration(n)
	var rows [][]any
	flush := func() {
		if err := projector.InsertJournalRows(context.Background(), ch, rows); err != nil {
			b.Fatal(err)
		}
		rows = rows[:0]
	}
	for i := range n {
		at := benchMonth.Add(time.Duration(i) * step)
		id := fmt.Sprintf("P%s%08d", appid, i)
		pay := journal.Entry{ID: fmt.Sprintf("%d-0", at.UnixMilli()), Key: "payment:" + id, Kind: journal.KindPayment,
			AppID: appid, Ref: id, At: at, Postings: []journal.Posting{
				{Account: journal.Receivable("default"), Currency: "USD", Amount: -100_00},
				{Account: journal.Fees, Currency: "USD", Amount: 3_20},
				{Account: journal.Merchant(appid, journal.Pending), Currency: "USD", Amount: 96_80}}}
		settle := journal.Entry{ID: fmt.Sprintf("%d-1", at.UnixMilli()), Key: "settlement:" + id, Kind: journal.KindSettlement,
			AppID: appid, Ref: id, At: at.Add(24 * time.Hour), Postings: []journal.Posting{
				{Account: journal.Merchant(appid, journal.Pending), Currency: "USD", Amount: -96_80},
				{Account: journal.Merchant(appid, journal.Available), Currency: "USD", Amount: 96_80}}}
		rows = append(rows, projector.JournalRows(pay)...)
		rows = append(rows, projector.JournalRows(settle)...)
		if len(rows) >= 200_000 {
			flush()
		}
	}
	if len(rows) > 0 {
		flush()
	}
}
