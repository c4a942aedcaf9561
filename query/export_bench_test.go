package query

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// BenchmarkExportWrite measures the export's formatting and compression
// alone, without ClickHouse: one op is one row (ns/op and allocs/op are per
// row), rows like the bench data's. encoding-csv is the writer before
// csvRows, kept here for the A/B.
//
//	go test -run '^$' -bench ExportWrite -benchmem ./query
func BenchmarkExportWrite(b *testing.B) {
	orders := benchExportOrders(1000)
	writers := []struct {
		name  string
		write func(w *bufio.Writer, gz bool, first []schema.Order, rest ExportRest) error
	}{{"csv-rows", writeExport}, {"encoding-csv", writeExportEncodingCSV}}
	for _, wr := range writers {
		for _, gz := range []bool{false, true} {
			name := wr.name
			if gz {
				name += "-gzip"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				w := bufio.NewWriterSize(io.Discard, 32<<10)
				start := time.Now()
				err := wr.write(w, gz, nil, func(emit func(*schema.Order) error) error {
					for i := range b.N {
						if err := emit(&orders[i%len(orders)]); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rows/s")
			})
		}
	}
}

// benchExportOrders are n orders as the bench data has them: a tenth paid.
func benchExportOrders(n int) []schema.Order {
	now := time.Now().UTC().Truncate(time.Millisecond)
	out := make([]schema.Order, n)
	for i := range out {
		at := now.Add(-time.Duration(i) * time.Second)
		mc := benchMethods[i%len(benchMethods)]
		out[i] = schema.Order{ID: schema.NewOrderID(at, schema.Shard(i%schema.NumShards)), Amount: schema.Amount(100 + i%10000),
			Currency: mc[1], Method: schema.Method(mc[0]), Status: schema.StatusReady, ClientOrderID: "c" + strconv.Itoa(i),
			NotifyURL: "https://shop.example/hook", CreatedAt: at, Version: 1}
		if i%10 == 0 {
			out[i].Status, out[i].CompletedAt = schema.StatusPaid, at.Add(time.Minute)
		}
	}
	return out
}

// writeExportEncodingCSV is writeExport as it was with encoding/csv.
func writeExportEncodingCSV(w *bufio.Writer, gz bool, first []schema.Order, rest ExportRest) error {
	var out io.Writer = w
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		out = zw
	}
	cw := csv.NewWriter(out)
	cw.UseCRLF = true
	rec := make([]string, 0, len(exportHeader))
	emit := func(o *schema.Order) error { return cw.Write(exportRecord(o, rec)) }
	err := cw.Write(exportHeader)
	for i := 0; err == nil && i < len(first); i++ {
		err = emit(&first[i])
	}
	if err == nil {
		err = rest(emit)
	}
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	if zw != nil {
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}
