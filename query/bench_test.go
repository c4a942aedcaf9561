package query

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// BenchmarkListing measures action=orders' read model at scale: one merchant
// with GATEWAY_BENCH_MERCHANT_ROWS orders (default 1,000,000) among
// GATEWAY_BENCH_TOTAL_ROWS (default 5,000,000), pages 1 and 1,000 of 10.
// The rows are loaded once into the database bench_listing of the
// ClickHouse at GATEWAY_TEST_CLICKHOUSE_ADDR and reused by later runs.
// It reports p50 and p99 latency of Page (the unfiltered total comes from
// Redis counters), of the exact Count in ClickHouse a status filter needed
// before the per-status counters (count-status-paid), and of the listing's
// total for a status filter as it is taken now, from those counters in the
// Redis at GATEWAY_TEST_REDIS_URL (total-status-paid).
//
//	make bench-listing
func BenchmarkListing(b *testing.B) {
	ch, merchantRows := benchData(b)
	ctx := context.Background()
	orders := NewClickHouseOrders(ch)
	b.Run("page1-wallet_b-CNY", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			got, err := orders.Page(ctx, Filter{AppID: "big", Page: 1, Limit: 10, Method: schema.MethodWalletB, Currency: "CNY"})
			if err != nil || len(got) != 10 || got[0].Method != schema.MethodWalletB {
				b.Fatalf("filtered page: %d orders, %v", len(got), err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	for _, page := range []int{1, 1000} {
		b.Run(fmt.Sprintf("page%d", page), func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				got, err := orders.Page(ctx, Filter{AppID: "big", Page: page, Limit: 10})
				if err != nil || len(got) != 10 {
					b.Fatalf("page %d: %d orders, %v", page, len(got), err)
				}
				lat = append(lat, time.Since(start))
			}
			reportPercentiles(b, lat)
		})
	}
	paid := schema.StatusPaid
	b.Run("count-status-paid", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			n, err := orders.Count(ctx, Filter{AppID: "big", Page: 1, Limit: 10, Status: &paid})
			if err != nil || n != merchantRows/10 {
				b.Fatalf("count: %d, %v", n, err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	q, err := NewListing(ListingDeps{Lister: orders, Totals: NewRedisOrders(benchCounters(b, merchantRows)), Rollups: orders})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("total-status-paid", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			n, err := q.total(ctx, Filter{AppID: "big", Page: 1, Limit: 10, Status: &paid})
			if err != nil || n != merchantRows/10 {
				b.Fatalf("total: %d, %v", n, err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	// The paymentMethod+currency filter's total: ClickHouse's count over
	// the merchant's orders (count-…) against the listing's, from the
	// report rollups (total-…).
	benchRollups(b, ch)
	wb := Filter{AppID: "big", Page: 1, Limit: 10, Method: schema.MethodWalletB, Currency: "CNY"}
	for _, how := range []string{"count", "total"} {
		b.Run(how+"-wallet_b-CNY", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				count := orders.Count
				if how == "total" {
					count = q.total
				}
				n, err := count(ctx, wb)
				if err != nil || n != merchantRows/len(benchMethods) {
					b.Fatalf("%s: %d, %v", how, n, err)
				}
				lat = append(lat, time.Since(start))
			}
			reportPercentiles(b, lat)
		})
	}
}

// benchCounters sets merchant big's order and status counters as the
// scripts would have kept them for loadBenchRows' orders: order i on shard
// i mod NumShards, paid when i is a multiple of 10, else ready.
func benchCounters(b *testing.B, merchantRows int) *redis.Client {
	b.Helper()
	rdb := testenv.Redis(b)
	ctx := context.Background()
	total, paid := make([]int, schema.NumShards), make([]int, schema.NumShards)
	for i := range merchantRows {
		total[i%schema.NumShards]++
		if i%10 == 0 {
			paid[i%schema.NumShards]++
		}
	}
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, s := range schema.AllShards() {
			p.Set(ctx, schema.OrderCountKey(s, "big"), total[s], 0)
			p.HSet(ctx, schema.StatusCountKey(s, "big"), strconv.Itoa(int(schema.StatusReady)), total[s]-paid[s],
				strconv.Itoa(int(schema.StatusPaid)), paid[s])
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return rdb
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// The bench data's layout: every merchant's orders evenly over the last
// 90 days, four (method, currency) pairs in turn.
const benchDays = 90

var benchMethods = [][2]string{{"wallet_a", "USD"}, {"wallet_b", "CNY"}, {"bdcard", "BDT"}, {"cryptohost", "USD"}}

// benchData loads the bench rows into the database bench_listing once
// (again when the row count or the layout differ) and opens it.
func benchData(b *testing.B) (driver.Conn, int) {
	b.Helper()
	addr := testenv.ClickHouseAddr(b)
	merchantRows := envInt("GATEWAY_BENCH_MERCHANT_ROWS", 1_000_000)
	totalRows := envInt("GATEWAY_BENCH_TOTAL_ROWS", 5_000_000)
	dsn := "clickhouse://" + addr + "/bench_listing"
	ctx := context.Background()
	ch := migratedClickHouse(b, dsn)
	var have, layout uint64
	if err := ch.QueryRow(ctx, "SELECT count(), countIf(appid = 'big' AND method = 'bdcard') FROM orders").Scan(&have, &layout); err != nil {
		b.Fatal(err)
	}
	if int(have) != totalRows || layout == 0 {
		for _, table := range []string{"orders", "report_cells", "report_marks"} {
			_ = ch.Exec(ctx, "TRUNCATE TABLE "+table)
		}
		start := time.Now()
		loadBenchRows(b, ctx, ch, merchantRows, totalRows)
		b.Logf("loaded %d rows (%d for merchant big) in %v", totalRows, merchantRows, time.Since(start).Round(time.Millisecond))
		_ = ch.Exec(ctx, "OPTIMIZE TABLE orders FINAL")
	}
	return ch, merchantRows
}

// loadBenchRows writes merchant "big"'s orders over the last 90 days and
// spreads the rest over 1,000 other merchants; a tenth of big's orders has a
// second (paid) version, as projection leaves them.
func loadBenchRows(b *testing.B, ctx context.Context, ch driver.Conn, merchantRows, totalRows int) {
	b.Helper()
	insert := "INSERT INTO orders (" + strings.Join(schema.OrderColumns, ", ") + ")"
	now := time.Now().UTC()
	const chunk = 200_000
	for done := 0; done < totalRows; {
		batch, err := ch.PrepareBatch(ctx, insert)
		if err != nil {
			b.Fatal(err)
		}
		for i := done; i < min(done+chunk, totalRows); i++ {
			appid := "big"
			if i >= merchantRows {
				appid = "m" + strconv.Itoa(i%1000)
			}
			at := now.Add(-time.Duration(int64(i%merchantRows)*benchDays*24*3600*1000/int64(merchantRows)) * time.Millisecond)
			mc := benchMethods[i%len(benchMethods)]
			o := schema.Order{ID: schema.NewOrderID(at, schema.Shard(i%schema.NumShards)), AppID: appid, Amount: schema.Amount(100 + i%10000),
				Currency: mc[1], Method: schema.Method(mc[0]), Status: schema.StatusReady, ClientOrderID: "c" + strconv.Itoa(i),
				NotifyURL: "https://shop.example/hook", CreatedAt: at, UpdatedAt: at, Version: 1}
			if err := batch.Append(schema.OrderRow(&o, at)...); err != nil {
				b.Fatal(err)
			}
			if appid == "big" && i%10 == 0 {
				o.Status, o.Version, o.CompletedAt = schema.StatusPaid, 2, at.Add(time.Minute)
				if err := batch.Append(schema.OrderRow(&o, at)...); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := batch.Send(); err != nil {
			b.Fatal(err)
		}
		done = min(done+chunk, totalRows)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
