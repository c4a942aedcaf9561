package query

import (
	"context"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// fileEmails fills the e-mail lookup for rows as the projector does
// (projector.TestEmailLookupFilledWithTheBatch shows it does).
func fileEmails(t testing.TB, ch driver.Conn, rows []schema.Order) {
	t.Helper()
	b, err := ch.PrepareBatch(context.Background(), "INSERT INTO order_emails (appid, email, created_at, id)")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if e := schema.NormalEmail(rows[i].CustomerEmail); e != "" {
			if err := b.Append(rows[i].AppID, e, rows[i].CreatedAt.UTC().Truncate(time.Second), rows[i].ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
}

// emailSearchOrders is how many orders the merchant of
// TestEmailSearchReadsLittle holds: enough granules (8,192 rows each) that
// reading the merchant whole and reading only the matches differ by far.
const emailSearchOrders = 1_000_000

// TestEmailSearchReadsLittle: a search by e-mail (page and count) among a
// merchant's 1,000,000 orders reads the lookup's granule and the granules
// of the orders found, not the merchant's orders: it fails if the search
// scans them (a condition on customer_email, which the key cannot serve,
// or a tuple IN a subquery, which 18.16 does not prune by).
func TestEmailSearchReadsLittle(t *testing.T) {
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	appid := "es" + time.Now().Format("150405.000000")
	// Orders one a minute back from now, each payer with 4 orders spread
	// over the whole range (one order in 250,000), generated in ClickHouse.
	gen := `INSERT INTO orders (appid, created_at, id, version, status, currency, amount, customer_email, created_ms, updated_ms, event_ms)
		SELECT ?, toDateTime(? - number * 60), concat('E', toString(number)), 1, 1, 'USD', 100,
			concat('payer', toString(number % 250000), '@shop.test'), (? - number * 60) * 1000, (? - number * 60) * 1000, (? - number * 60) * 1000
		FROM system.numbers LIMIT ?`
	now := uint32(time.Now().Unix())
	if err := ch.Exec(ctx, gen, appid, now, uint64(now), uint64(now), uint64(now), uint64(emailSearchOrders)); err != nil {
		t.Fatal(err)
	}
	if err := ch.Exec(ctx, `INSERT INTO order_emails (appid, email, created_at, id)
		SELECT appid, customer_email, created_at, id FROM orders WHERE appid = ?`, appid); err != nil {
		t.Fatal(err)
	}
	var read uint64
	pctx := clickhouse.Context(ctx, clickhouse.WithProgress(func(p *clickhouse.Progress) { read += p.Rows }))
	c := NewClickHouseOrders(ch)
	f := Filter{AppID: appid, Page: 1, Limit: 25, CustomerEmail: " Payer17@SHOP.test"}
	page, err := c.Page(pctx, f)
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Count(pctx, f)
	if err != nil {
		t.Fatal(err)
	}
	want := emailSearchOrders / 250_000
	if n != want || len(page) != min(want, 25) {
		t.Fatalf("found %d (page of %d), want %d", n, len(page), want)
	}
	for _, o := range page {
		if o.CustomerEmail != "payer17@shop.test" {
			t.Fatalf("found %s of %q", o.ID, o.CustomerEmail)
		}
	}
	t.Logf("an e-mail search (page and count) among %d orders read %d rows", emailSearchOrders, read)
	// Each order found costs its granule (8,192 rows) in each query that
	// reads it; a scan costs the merchant's every row at least once.
	if limit := uint64(emailSearchOrders / 5); read > limit {
		t.Fatalf("the search read %d rows of a merchant of %d orders (limit %d): it scans", read, emailSearchOrders, limit)
	}
}
