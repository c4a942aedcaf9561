package recon_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

var reconDay = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

const reconChannel = "wallet_a.default"

type reconEnv struct {
	im     *recon.Importer
	j      *journal.Journal
	q      *recon.RedisQueue
	rdb    redis.UniversalClient
	orders []*schema.Order
}

// newReconEnv posts n paid wallet_a payments of day (cost 0.6%), projects
// the journal and orders into ClickHouse, and wires the importer over them.
func newReconEnv(t testing.TB, n int) *reconEnv {
	t.Helper()
	rdb := testenv.Redis(t)
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &reconEnv{j: j, q: recon.NewRedisQueue(rdb), rdb: rdb}
	var txs []journal.Tx
	for i := range n {
		paid := reconDay.Add(time.Duration(i%86000) * time.Second)
		o := &schema.Order{ID: schema.NewOrderID(paid.Add(-time.Minute), schema.Shard(i%schema.NumShards)), AppID: []string{"4001", "4002"}[i%2],
			Amount: schema.Amount(1000 + i), Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusPaid, Fee: "100:0:0:0",
			Cost: "60:0:0:0", ProviderRef: "WA" + o2s(i), CreatedAt: paid.Add(-time.Minute), UpdatedAt: paid, CompletedAt: paid, Version: 3}
		tx, err := journal.PaymentTx(o, merchant.DefaultTerms(), journal.Source(o), true)
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
		e.orders = append(e.orders, o)
	}
	for i := 0; i < len(txs); i += 1000 {
		if _, errs := j.PostAll(context.Background(), txs[i:min(i+1000, len(txs))]); errs[0] != nil {
			t.Fatal(errs[0])
		}
	}
	fixture.ProjectJournal(t, rdb, ch)
	fixture.InsertOrders(t, ch, e.orders)
	e.im = recon.NewImporter(query.NewStatements(ch), j, e.q, nil)
	return e
}

func o2s(i int) string { return string(rune('A'+i%26)) + time.Duration(i).String() }

// statementOf is the provider's statement of the orders as rows, in
// wallet_a's shape, after plant has changed them.
func statementOf(t testing.TB, orders []*schema.Order, plant func(i int, r *statement.Row) bool) []byte {
	t.Helper()
	var b bytes.Buffer
	err := statement.Write(&b, walleta.StatementShape, func(y func(statement.Row) bool) {
		for i, o := range orders {
			p, err := journal.Price(o)
			if err != nil {
				t.Fatal(err)
			}
			r := statement.Row{Ref: o.ProviderRef, Order: o.ID, Currency: o.Currency, Account: "2021000000000000",
				Amount: int64(o.Amount), Fee: int64(p.Cost), At: o.CompletedAt}
			if plant != nil && !plant(i, &r) {
				continue
			}
			if !y(r) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func parseWalletA(r io.Reader) ([]recon.Line, error) { return walleta.ParseStatement(r, "") }

func receivable(t testing.TB, j *journal.Journal) schema.Amount {
	t.Helper()
	b, err := j.PlatformBalances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b[journal.Receivable(reconChannel)]["CNY"]
}

// TestImport: a statement with one difference of each kind planted is
// reconciled with each found and none invented, the matched lines clear
// the receivable (a fee difference moves to the cost), and the same file
// again changes nothing.
func TestImport(t *testing.T) {
	e := newReconEnv(t, 40)
	ctx := context.Background()
	before := receivable(t, e.j)
	if before >= 0 {
		t.Fatalf("receivable %d before any statement: want what the provider owes (negative)", before)
	}
	file := statementOf(t, e.orders, func(i int, r *statement.Row) bool {
		switch i {
		case 1:
			return false // missing at the provider
		case 2:
			r.Amount-- // amount differs
		case 3:
			r.Fee++ // fee differs
		case 4:
			r.Ref, r.Order = "WA-unknown", "P-unknown" // missing with us
		}
		return true
	})
	file = append(file, statementOf(t, e.orders[5:6], nil)[len("trade_no,out_trade_no,total_amount,currency,service_fee,settle_amount,gmt_payment,app_id\r\n"):]...) // duplicate
	res, err := e.im.Import(ctx, reconChannel, reconDay, file, parseWalletA)
	if err != nil {
		t.Fatal(err)
	}
	want := map[recon.Kind]int{recon.MissingAtProvider: 2, recon.AmountDiffers: 1, recon.FeeDiffers: 1, recon.MissingWithUs: 1, recon.Duplicate: 1}
	for k, n := range want {
		if res.Count(k) != n {
			t.Errorf("%s: %d findings, want %d", k, res.Count(k), n)
		}
	}
	if len(res.Findings) != 6 || len(res.Matched) != 37 || res.Posted != 37 || res.Again {
		t.Fatalf("findings %d matched %d posted %d again %v", len(res.Findings), len(res.Matched), res.Posted, res.Again)
	}
	// What stays owed is exactly the three unmatched payments' nets.
	var owed schema.Amount
	for _, i := range []int{1, 2, 4} {
		p, _ := journal.Price(e.orders[i])
		owed -= e.orders[i].Amount - p.Cost
	}
	if got := receivable(t, e.j); got != owed || res.Cleared["CNY"] != owed-before || len(res.Cleared) != 1 {
		t.Fatalf("receivable after import %d, want %d; cleared %v, want %d", got, owed, res.Cleared, owed-before)
	}
	raised, err := e.q.Newest(ctx, 100)
	if err != nil || len(raised) != 6 {
		t.Fatalf("raised %d findings, %v", len(raised), err)
	}
	again, err := e.im.Import(ctx, reconChannel, reconDay, file, parseWalletA)
	if err != nil || !again.Again || again.Posted != 0 || len(again.Cleared) != 0 {
		t.Fatalf("again: %+v %v", again.Posted, err)
	}
	if got := receivable(t, e.j); got != owed {
		t.Fatalf("receivable after the same file again %d, want %d", got, owed)
	}
	if raised, _ := e.q.Newest(ctx, 100); len(raised) != 6 {
		t.Fatalf("the same file again raised %d findings, want the same 6", len(raised))
	}
	journaltest.Check(t, e.rdb)
}
