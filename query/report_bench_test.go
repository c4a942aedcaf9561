package query

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// BenchmarkReports measures the reports over BenchmarkListing's data
// (merchant "big" with GATEWAY_BENCH_MERCHANT_ROWS orders over 90 days
// among GATEWAY_BENCH_TOTAL_ROWS): p50/p99 of a 90-day summary and of a
// 90-day time series by day and method, and a whole 90-day export written
// as CSV to nowhere, in rows/s with the process's peak RSS growth during it.
//
//	make bench-listing
func BenchmarkReports(b *testing.B) {
	ch, merchantRows := benchData(b)
	ctx := context.Background()
	orders := NewClickHouseOrders(ch)
	benchRollups(b, ch)
	to := time.Now().UTC().Add(time.Minute)
	f := ReportFilter{AppID: "big", From: to.Add(-benchDays*24*time.Hour - time.Hour), To: to}
	// With GATEWAY_BENCH_LIVE=1, rows named live-… are the same reports
	// folded live whole (no rollups): the A/B of the rollups under the same
	// load (seconds per report at full size, so not by default).
	variants := []struct {
		prefix string
		orders *ClickHouseOrders
	}{{"", orders}}
	if os.Getenv("GATEWAY_BENCH_LIVE") == "1" {
		variants = append(variants, variants[0])
		variants[1].prefix, variants[1].orders = "live-", orders.WithoutRollups()
	}
	for _, v := range variants {
		orders := v.orders
		b.Run(v.prefix+"summary-90d", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				s, err := orders.Summary(ctx, f)
				if err != nil || s.Created != merchantRows || s.Paid != merchantRows/10 {
					b.Fatalf("summary: %d created, %d paid, %v", s.Created, s.Paid, err)
				}
				lat = append(lat, time.Since(start))
			}
			reportPercentiles(b, lat)
		})
		b.Run(v.prefix+"timeseries-day-method-90d", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				rows, err := orders.Series(ctx, f, SeriesSpec{Interval: "day", GroupBy: "paymentMethod", TZ: "Europe/Berlin"})
				if err != nil || len(rows) < benchDays*len(benchMethods) {
					b.Fatalf("series: %d rows, %v", len(rows), err)
				}
				lat = append(lat, time.Since(start))
			}
			reportPercentiles(b, lat)
		})
	}
	// export-90d-gzip: as a client that accepts gzip gets it (gwbench's
	// through the gateway does).
	for _, gz := range []bool{false, true} {
		name := "export-90d"
		if gz {
			name += "-gzip"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				benchExport(b, orders, f, gz, merchantRows)
			}
		})
	}
}

// benchExport runs one whole export to nowhere and reports its rows/s,
// its heap allocations per row and the process's peak RSS growth.
func benchExport(b *testing.B, orders *ClickHouseOrders, f ReportFilter, gz bool, merchantRows int) {
	b.Helper()
	rssBefore := procStatusKiB(b, "VmRSS")
	resetPeakRSS()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	start := time.Now()
	first, rest, err := orders.Export(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	n := len(first)
	w := bufio.NewWriterSize(io.Discard, 32<<10)
	if err := writeExport(w, gz, first, func(emit func(*schema.Order) error) error {
		return rest(func(o *schema.Order) error { n++; return emit(o) })
	}); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	runtime.ReadMemStats(&ms)
	if n != merchantRows {
		b.Fatalf("exported %d orders, want %d", n, merchantRows)
	}
	b.ReportMetric(float64(n)/took.Seconds(), "rows/s")
	b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(n), "allocs/row")
	b.ReportMetric(float64(procStatusKiB(b, "VmHWM")-rssBefore)/1024, "rss-growth-MiB")
}

// procStatusKiB reads a kB field of /proc/self/status (Linux).
func procStatusKiB(b *testing.B, field string) int {
	b.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// resetPeakRSS sets VmHWM back to the current RSS (Linux 4.0+), so that the
// peak read afterwards is the export's, not the data load's.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// benchRollups brings the report rollups of the bench data up to date, as
// the projector's job does in the background (the data was loaded around
// the projector), and logs how long that took.
func benchRollups(b *testing.B, ch driver.Conn) {
	b.Helper()
	r, err := NewRollup(RollupConfig{}, ch, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	n, err := r.RunOnce(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("report rollups: %d merchant hours folded in %v", n, time.Since(start).Round(time.Millisecond))
}
