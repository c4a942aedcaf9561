package query

import (
	"context"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// DefaultReportMaxRange is the longest from..to a report may span unless
// configured: a year and a day, so a leap year fits.
const DefaultReportMaxRange = 366 * 24 * time.Hour

// ReportFilter selects the orders a report covers: one merchant's orders
// created in [From, To), optionally only those whose method, currency or
// status is now the one given.
type ReportFilter struct {
	AppID         string
	From, To      time.Time
	Method        schema.Method
	Currency      string
	Status        *schema.Status
	ClientOrderID string   // export only
	Refunded      Refunded // export only
}

// Reports is the read model of action=summary, timeseries and export.
type Reports interface {
	Summary(ctx context.Context, f ReportFilter) (Summary, error)
	Series(ctx context.Context, f ReportFilter, s SeriesSpec) ([]SeriesRow, error)
	// Export reads the first window of f's orders, newest first, and
	// returns it with a function that emits the rest.
	Export(ctx context.Context, f ReportFilter) (first []schema.Order, rest ExportRest, err error)
}

// ExportRest emits the orders after the first window, in order.
type ExportRest func(emit func(*schema.Order) error) error

// parseReportFilter reads from and to (both required, from < to, at most
// the configured range apart) and the filters the action takes.
func (q *Orders) parseReportFilter(c Args, appid string) (ReportFilter, error) {
	f := ReportFilter{AppID: appid}
	var err error
	for _, tp := range []struct {
		name string
		dst  *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if c.Query(tp.name) == "" {
			return f, platform.Errorf(platform.KindMissingParameter, "parameter %s is required", tp.name)
		}
		if *tp.dst, err = timeParam(c, tp.name); err != nil {
			return f, err
		}
	}
	if !f.From.Before(f.To) {
		return f, platform.Errorf(platform.KindInvalidParameter, "to must be after from")
	}
	if max := q.cfg.ReportMaxRange; f.To.Sub(f.From) > max {
		return f, platform.Errorf(platform.KindInvalidParameter, "to must be at most %d days after from", int(max/(24*time.Hour)))
	}
	if f.Method, err = methodParam(c); err != nil {
		return f, err
	}
	if f.Currency, err = currencyParam(c); err != nil {
		return f, err
	}
	if f.Status, err = statusParam(c); err != nil {
		return f, err
	}
	f.ClientOrderID = c.Query("clientOrderId")
	return f, nil
}

// Figures are the numbers of a summary, for all orders or for one method.
type Figures struct {
	Created    int     `json:"created"`
	Paid       int     `json:"paid"`
	Failed     int     `json:"failed"`
	Cancelled  int     `json:"cancelled"`
	Open       int     `json:"open"` // pending or ready
	Conversion float64 `json:"conversion"`
	// Per currency, two decimals; currencies with nothing are left out.
	PaidAmount     map[string]string `json:"paidAmount"`
	RefundedAmount map[string]string `json:"refundedAmount"`
	// Time from create to paid of the paid orders, in milliseconds: the
	// values at rank floor(q·n) of their sorted list (null without any).
	PaidP50Ms *int64 `json:"timeToPaidP50Ms"`
	PaidP90Ms *int64 `json:"timeToPaidP90Ms"`
}

// MethodFigures are one method's figures.
type MethodFigures struct {
	PaymentMethod string `json:"paymentMethod"`
	Figures
}

// Summary is action=summary's data.
type Summary struct {
	From string `json:"from"`
	To   string `json:"to"`
	Figures
	ByMethod []MethodFigures `json:"byMethod"`
}

// Summary is action=summary for the authenticated merchant acct.
func (q *Orders) Summary(ctx context.Context, acct *merchant.Account, args Args) (Summary, error) {
	if q.reports == nil {
		return Summary{}, platform.Errorf(platform.KindUnavailable, "reports are not served by this node")
	}
	f, err := q.parseReportFilter(args, acct.AppID)
	if err != nil {
		return Summary{}, err
	}
	release, err := q.gate.Acquire(ctx, f.AppID)
	if err != nil {
		return Summary{}, err
	}
	s, err := q.reports.Summary(ctx, f)
	release()
	if err != nil {
		q.log.Error("summary", "err", err)
		return Summary{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "reports are unavailable; retry later", Err: err}
	}
	s.From, s.To = schema.WireTime(f.From), schema.WireTime(f.To)
	return s, nil
}

// amounts renders per-currency sums, leaving zero sums out.
func amounts(m map[string]int64) map[string]string {
	out := map[string]string{}
	for cur, n := range m {
		if n != 0 {
			out[cur] = schema.Amount(n).String()
		}
	}
	return out
}

// conversion is paid / created, rounded to four decimals.
func conversion(paid, created int) float64 {
	if created == 0 {
		return 0
	}
	return float64(paid*10000/created) / 10000
}
