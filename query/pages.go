package query

import (
	"bufio"
	"time"

	"github.com/paygate/gateway/schema"
)

// Pages (the merchant console) call the read models directly, not through
// GET /api/order; these give them the API's own layout and CSV, so a page
// and the API never disagree.

// BuildSeries lays out Series rows as action=timeseries does: every
// bucket of [f.From, f.To) in loc, empty ones included.
func BuildSeries(f ReportFilter, s SeriesSpec, loc *time.Location, rows []SeriesRow) []SeriesBucket {
	return buildBuckets(f.From, f.To, s.Interval, loc, rows)
}

// WriteExportCSV writes action=export's CSV (gzip-compressed when gz).
func WriteExportCSV(w *bufio.Writer, gz bool, first []schema.Order, rest ExportRest) error {
	return writeExport(w, gz, first, rest)
}
