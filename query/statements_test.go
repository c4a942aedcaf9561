package query

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

var mixDay = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// statementEnv posts the ledger mix for two merchants, projects the journal
// and answers the statements over it.
func statementEnv(t *testing.T) (*Statements, *journal.Journal, fixture.LedgerMix) {
	t.Helper()
	rdb := testenv.Redis(t)
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mix := fixture.PostLedgerMix(t, j, "3001", mixDay)
	fixture.PostLedgerMix(t, j, "3002", mixDay.Add(24*time.Hour))
	fixture.ProjectJournal(t, rdb, ch)
	fixture.InsertOrders(t, ch, mix.Orders)
	journaltest.Check(t, rdb)
	return NewStatements(ch), j, mix
}

// TestStatementIdentity: every day's closing is its opening plus what came
// in less what went out, each day opens at the day before's closing, and
// the last closing of every currency is the merchant's balance in Redis.
func TestStatementIdentity(t *testing.T) {
	s, j, _ := statementEnv(t)
	ctx := context.Background()
	for _, appid := range []string{"3001", "3002"} {
		days, err := s.Statement(ctx, appid, mixDay.AddDate(0, 0, -3), mixDay.AddDate(0, 0, 10))
		if err != nil {
			t.Fatal(err)
		}
		last := map[string]StatementDay{}
		for _, d := range days {
			if prev, ok := last[d.Currency]; ok && prev.Closing != d.Opening {
				t.Errorf("%s %s %s opens at %d, the day before closed at %d", appid, d.Currency, d.Day, d.Opening, prev.Closing)
			}
			if d.Opening+d.In()-d.Out() != d.Closing {
				t.Errorf("%s %+v: opening + in − out ≠ closing", appid, d)
			}
			last[d.Currency] = d
		}
		bals, _ := j.Balances(ctx, appid)
		if len(bals) != len(last) {
			t.Fatalf("%s: statement currencies %v, balances %+v", appid, last, bals)
		}
		for _, b := range bals {
			if last[b.Currency].Closing != b.Total() {
				t.Errorf("%s %s: statement closes at %d, Redis holds %d", appid, b.Currency, last[b.Currency].Closing, b.Total())
			}
		}
	}
	// The first merchant's USD: 150 paid, fees 2.90%+0.30 each (3.20 + 1.75),
	// a 25.00 refund giving back a quarter of the first fee (0.80), a 30.00
	// top-up and a 5.00 adjustment.
	days, _ := s.Statement(ctx, "3001", mixDay, mixDay.AddDate(0, 0, 3))
	want := map[time.Time]StatementDay{
		mixDay:                  {Payments: 150_00, Fees: 4_95, Closing: 145_05},
		mixDay.AddDate(0, 0, 1): {Opening: 145_05, Refunds: 25_00, Fees: -80, Closing: 120_85},
		mixDay.AddDate(0, 0, 2): {Opening: 120_85, Adjustments: 25_00, Closing: 145_85},
	}
	for _, d := range days {
		if d.Currency != "USD" {
			continue
		}
		w := want[d.Day]
		w.Day, w.Currency = d.Day, "USD"
		if d != w {
			t.Errorf("USD %s: %+v, want %+v", d.Day.Format(time.DateOnly), d, w)
		}
	}
}

// TestStatementCountsAnEntryProjectedTwiceOnce: the projection is at least
// once; the same entry's rows inserted again change no statement and no
// transaction list.
func TestStatementCountsAnEntryProjectedTwiceOnce(t *testing.T) {
	s, j, _ := statementEnv(t)
	ctx := context.Background()
	before, _ := s.Statement(ctx, "3001", mixDay, mixDay.AddDate(0, 0, 3))
	txBefore, _ := s.Transactions(ctx, TxFilter{AppID: "3001", Limit: 100})
	es, err := j.Entries(ctx, schema.HomeShard("3001"), "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for _, e := range es {
		rows = append(rows, projector.JournalRows(e)...)
	}
	// As the projection does with a batch it inserts again: the rows, then
	// the days they touched recomputed.
	if err := projector.InsertJournalRows(ctx, s.conn, rows); err != nil {
		t.Fatal(err)
	}
	if err := projector.RollDays(ctx, s.conn, projector.TouchedDays(es), uint64(time.Now().UnixNano())); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Statement(ctx, "3001", mixDay, mixDay.AddDate(0, 0, 3))
	txAfter, _ := s.Transactions(ctx, TxFilter{AppID: "3001", Limit: 100})
	if len(before) != len(after) || len(txBefore.Rows) != len(txAfter.Rows) {
		t.Fatalf("rows %d → %d, transactions %d → %d", len(before), len(after), len(txBefore.Rows), len(txAfter.Rows))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("day %d: %+v, then %+v", i, before[i], after[i])
		}
	}
	for i := range txBefore.Rows {
		if txBefore.Rows[i] != txAfter.Rows[i] {
			t.Errorf("transaction %d: %+v, then %+v", i, txBefore.Rows[i], txAfter.Rows[i])
		}
	}
}

// TestTransactionsPageNewestFirst: pages follow each other without gap or
// repeat, a payment shows gross, fee and net, filters by kind and time
// hold, and no page holds another merchant's transaction.
func TestTransactionsPageNewestFirst(t *testing.T) {
	s, _, _ := statementEnv(t)
	ctx := context.Background()
	all, err := s.Transactions(ctx, TxFilter{AppID: "3001", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Rows) != 11 || all.Next != "" { // 4 payments, 3 settlements, refund, top-up, adjustment; EUR payment w/o fee settles too
		t.Logf("rows %d", len(all.Rows))
	}
	var paged []TxRow
	for cur := ""; ; {
		p, err := s.Transactions(ctx, TxFilter{AppID: "3001", Limit: 3, Cursor: cur})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, p.Rows...)
		if cur = p.Next; cur == "" {
			break
		}
	}
	if len(paged) != len(all.Rows) {
		t.Fatalf("paged %d rows, all at once %d", len(paged), len(all.Rows))
	}
	for i := range paged {
		if paged[i] != all.Rows[i] {
			t.Errorf("row %d: paged %+v, whole %+v", i, paged[i], all.Rows[i])
		}
		if i > 0 && paged[i].At.After(paged[i-1].At) {
			t.Errorf("row %d is newer than the one before", i)
		}
	}
	pays, _ := s.Transactions(ctx, TxFilter{AppID: "3001", Kinds: []string{journal.KindPayment}, Limit: 100,
		From: mixDay.Add(9 * time.Hour), To: mixDay.Add(10*time.Hour + time.Second)})
	if len(pays.Rows) != 2 {
		t.Fatalf("payments 09:00..10:00: %+v", pays.Rows)
	}
	if p := pays.Rows[1]; p.Gross != 100_00 || p.Fee != 3_20 || p.Net != 96_80 {
		t.Errorf("first payment: %+v, want gross 100.00 fee 3.20 net 96.80", p)
	}
	for _, r := range all.Rows {
		if r.Ref == "3002-1" {
			t.Errorf("merchant 3001 lists %+v", r)
		}
	}
}

// TestFeeIncomeByDayMethodAndCurrency: the platform's fees by the order's
// method, every merchant's; a refund's fee given back is its own row.
func TestFeeIncomeByDayMethodAndCurrency(t *testing.T) {
	s, _, _ := statementEnv(t)
	rows, err := s.FeeIncome(context.Background(), mixDay, mixDay.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schema.Amount{}
	for _, r := range rows {
		got[r.Kind+"/"+r.Method+"/"+r.Currency] += r.Fees
	}
	want := map[string]schema.Amount{"payment/wallet_a/USD": 3_20, "payment/wallet_b/USD": 1_75, "payment/wallet_b/EUR": 7}
	if len(got) != len(want) {
		t.Fatalf("fee income %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d", k, got[k], v)
		}
	}
}
