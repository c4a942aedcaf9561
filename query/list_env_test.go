package query

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

type listEnv struct {
	t    *testing.T
	app  *testApp
	ch   driver.Conn
	acct *merchant.Account
	ids  []string // the merchant's orders, newest first
	byID map[string]schema.Order
}

// newListEnv loads 23 orders of one merchant (some in two versions) and a
// few of another into the real ClickHouse, straight into the table the
// projector fills.
func newListEnv(t *testing.T) *listEnv {
	t.Helper()
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	rdb := testenv.Redis(t)
	accounts := merchant.NewStore(rdb)
	acct, err := accounts.Create(ctx, merchant.NewAccount{Name: "lister"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := accounts.Create(ctx, merchant.NewAccount{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	e := &listEnv{t: t, ch: ch, acct: acct, byID: map[string]schema.Order{}}

	base := time.Date(2026, 10, 31, 23, 50, 0, 0, time.UTC) // spans a month boundary: two partitions
	var rows []schema.Order
	for i := range 23 {
		at := base.Add(time.Duration(i) * time.Minute)
		o := schema.Order{ID: schema.NewOrderID(at, schema.Shard(i%schema.NumShards)), AppID: acct.AppID, Amount: schema.Amount(100 * (i + 1)),
			Currency: "USD", Method: schema.MethodWalletB, Status: schema.StatusReady, ClientOrderID: fmt.Sprintf("L-%02d", i),
			QRPayload: "q", CreatedAt: at, UpdatedAt: at, Version: 1, CustomerEmail: fmt.Sprintf("payer%d@shop.test", i%4)}
		if i%5 == 0 {
			o.Currency = "CNY"
		}
		if i%3 == 1 {
			o.Method = schema.MethodSelect // the payer chooses wallet_a below
		}
		rows = append(rows, o)
		switch i % 3 {
		case 1: // ready, then paid with the method the payer chose
			o.Status, o.Version, o.CompletedAt, o.Method = schema.StatusPaid, 2, at.Add(time.Second), schema.MethodWalletA
			rows = append(rows, o)
		case 2: // ready, then failed: must not match status=ready
			o.Status, o.Version = schema.StatusFailed, 2
			rows = append(rows, o)
		}
		e.byID[o.ID] = o
		e.ids = append([]string{o.ID}, e.ids...)
	}
	for i := range 5 {
		at := base.Add(time.Duration(i) * time.Minute)
		rows = append(rows, schema.Order{ID: schema.NewOrderID(at, 1), AppID: other.AppID, Amount: 1, Currency: "USD",
			Method: schema.MethodWalletB, Status: schema.StatusReady, CreatedAt: at, UpdatedAt: at, Version: 1})
	}
	b, err := ch.PrepareBatch(ctx, "INSERT INTO orders ("+strings.Join(schema.OrderColumns, ", ")+")")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := b.Append(schema.OrderRow(&rows[i], rows[i].UpdatedAt)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	fileEmails(t, ch, rows)
	// The create scripts count each order once, on its own shard, and the
	// unfiltered total reads those counters: one INCR per order created
	// (version 1), both merchants', as the scripts would have done. No
	// status counters: these orders predate them, as a merchant's from
	// before they existed do, so status filters count in ClickHouse.
	_, err = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range rows {
			if rows[i].Version == 1 {
				shard, _ := schema.ParseOrderID(rows[i].ID)
				p.Incr(ctx, schema.OrderCountKey(shard, rows[i].AppID))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	chOrders := NewClickHouseOrders(ch)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	live := NewRedisOrders(rdb)
	e.app = serveOrders(t, merchant.NewDirectory(accounts, log, time.Millisecond),
		Sources{Live: live, Archive: chOrders, Listing: mustListing(t, ListingDeps{Lister: chOrders, Totals: live, Rollups: chOrders})}, log)
	return e
}

type listBody struct {
	Code  int    `json:"code"`
	Error string `json:"error"`
	Msg   string `json:"msg"`
	Data  struct {
		Page   int                `json:"page"`
		Limit  int                `json:"limit"`
		Total  int                `json:"total"`
		Orders []schema.OrderView `json:"orders"`
	} `json:"data"`
}

func (e *listEnv) get(params string) (int, listBody, string) {
	e.t.Helper()
	q := url.Values{"appid": {e.acct.AppID}, "key": {e.acct.QueryKey}}
	target := "/api/order?" + q.Encode() + "&" + params
	res, err := e.app.Test(httptest.NewRequest("GET", target, nil), 10_000)
	if err != nil {
		e.t.Fatal(err)
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	var b listBody
	if err := json.Unmarshal(raw, &b); err != nil {
		e.t.Fatalf("%s: %v: %s", target, err, raw)
	}
	return res.StatusCode, b, string(raw)
}

// clickHouseOrders is ClickHouse's own exact count of the merchant's
// distinct orders, asked directly rather than through the code under test:
// what an unfiltered listing's total, read from the Redis counters, must
// agree with.
func clickHouseOrders(t *testing.T, ch driver.Conn, appid string) int {
	t.Helper()
	var n uint64
	if err := ch.QueryRow(context.Background(), "SELECT uniqExact(id) FROM orders WHERE appid = ?", appid).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// unfiltered tells whether listing params leave every order of the
// merchant in: no status, clientOrderId, from or to.
func unfiltered(t *testing.T, params string) bool {
	t.Helper()
	q, err := url.ParseQuery(params)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"status", "clientOrderId", "from", "to", "paymentMethod", "currency"} {
		if q.Has(k) {
			return false
		}
	}
	return true
}

// listedIDs is the payment ids of a listing page, in order.
func listedIDs(b listBody) []string {
	var out []string
	for _, o := range b.Data.Orders {
		out = append(out, o.PaymentID)
	}
	return out
}

// migratedClickHouse applies the migrations to dsn and opens it for the
// test, closed when it ends.
func migratedClickHouse(t testing.TB, dsn string) driver.Conn {
	t.Helper()
	if _, err := platform.Migrate(context.Background(), dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	return ch
}
