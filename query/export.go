package query

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// exportHeader is the CSV's header row: the fields of action=order's
// object that are data of the order (the payer-facing links are derived
// from the public URL and left out).
var exportHeader = []string{"paymentId", "status", "status_str", "amount", "currency", "paymentMethod", "description",
	"clientOrderId", "notify_url", "return_url", "createdAt", "completedTime", "payableAmount", "paidWithBalance",
	"sandbox", "chargeAmount", "chargeCurrency", "fxRate", "payCurrency", "refundedAmount"}

// exportTimeout bounds one export's stream: a client reading slowly holds
// a ClickHouse query at a time, never more, but not forever.
const exportTimeout = 30 * time.Minute

// ExportStream is one export under way: its filter's range, for the file
// name, and the rows still to write.
type ExportStream struct {
	From, To time.Time
	appid    string
	first    []schema.Order
	rest     ExportRest
	cancel   context.CancelFunc
	log      *slog.Logger
}

// Export starts action=export for the authenticated merchant acct: the
// merchant's orders as RFC 4180 CSV (CRLF, quoted where needed), newest
// first. The rows come from the read model window by window
// (export_clickhouse.go) and go out as they come (ExportStream.Write), so
// memory holds one window whatever the range. ClickHouse is asked once
// here, before the door's status line, so that a failure to reach it is a
// 503 rather than an empty file; a failure later can only cut the stream
// short, and is logged.
func (q *Orders) Export(ctx context.Context, acct *merchant.Account, args Args) (*ExportStream, error) {
	if q.reports == nil {
		return nil, platform.Errorf(platform.KindUnavailable, "reports are not served by this node")
	}
	f, err := q.parseReportFilter(args, acct.AppID)
	if err != nil {
		return nil, err
	}
	if v := args.Query("format", "csv"); v != "csv" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "format must be csv")
	}
	// The values outlive the request (the stream runs after its handler returns).
	f.AppID, f.Method, f.Currency = strings.Clone(f.AppID), schema.Method(strings.Clone(string(f.Method))), strings.Clone(f.Currency)
	f.ClientOrderID = strings.Clone(f.ClientOrderID)

	release, err := q.gate.Acquire(ctx, f.AppID)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
	first, rest, err := q.reports.Export(sctx, f)
	release() // the stream's later windows run outside the gate (docs/reporting.md)
	if err != nil {
		cancel()
		q.log.Error("export", "err", err)
		return nil, &platform.Error{Kind: platform.KindUnavailable, Msg: "reports are unavailable; retry later", Err: err}
	}
	return &ExportStream{From: f.From, To: f.To, appid: f.AppID, first: first, rest: rest, cancel: cancel, log: q.log}, nil
}

// Write writes the whole CSV to w, gzip-compressed when gz, and ends the
// export's read.
func (s *ExportStream) Write(w *bufio.Writer, gz bool) {
	defer s.cancel()
	if err := writeExport(w, gz, s.first, s.rest); err != nil {
		s.log.Warn("export cut short", "appid", s.appid, "err", err)
	}
}

// writeExport writes the header, the first window's rows, then the rest.
func writeExport(w *bufio.Writer, gz bool, first []schema.Order, rest ExportRest) error {
	var out io.Writer = w
	var zw *gzip.Writer
	if gz {
		// The fastest level: at the default the compression alone held an
		// export near 140,000 rows/s; level 1 still shrinks the CSV about 5x.
		// klauspost/compress (already under fasthttp and clickhouse-go):
		// its level 1 took about half the CPU of compress/gzip's per row
		// (BenchmarkExportWrite/csv-rows-gzip), and gzip was then most of
		// the formatting side's CPU.
		zw, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		out = zw
	}
	cw := newCSVRows(out)
	cw.header(exportHeader)
	var err error
	for i := 0; err == nil && i < len(first); i++ {
		err = cw.order(&first[i])
	}
	if err == nil {
		err = rest(cw.order)
	}
	if ferr := cw.flush(); err == nil {
		err = ferr
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
