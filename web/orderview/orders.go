package orderview

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame"
)

// Form is the orders page's form, as typed (the strings) and as
// understood (Query).
type Form struct {
	Q, Status, Method, Currency, From, To string
	Query                                 query.Filter
}

// OrderList is the orders page's data.
type OrderList struct {
	F        Form
	Rows     []Row
	Pager    frame.Pager
	Statuses []string
	Methods  []string
	Currency []string
	Export   string // the export link of this filter; "" when it cannot export
	Live     bool
	NotFound string // a paymentId searched for that is not the merchant's
}

// Row is one order as the table shows it.
type Row struct {
	ID, ClientOrderID, Amount, Currency, Method, Status, Created string
	// Badge is the state its badge reads: the status, or a paid order's
	// refund state.
	Badge   string
	Sandbox bool
	// CreatedAt is Created as the page shows it, in the viewer's zone.
	CreatedAt time.Time
}

// RowOf is o as the table shows it.
func RowOf(o *schema.Order) Row {
	return Row{ID: o.ID, ClientOrderID: o.ClientOrderID, Amount: o.Amount.String(), Currency: o.Currency,
		Method: string(o.Method), Status: o.Status.String(), Badge: Badge(o), Created: o.CreatedAt.UTC().Format("2006-01-02 15:04:05"), Sandbox: o.Sandbox,
		CreatedAt: o.CreatedAt}
}

// The refund states a badge and the status filter name.
const (
	RefundedPart = "partially_refunded"
	RefundedAll  = "refunded"
)

// Badge is the state o's badge reads wherever its status shows: a paid
// order something of which was refunded reads "Partially refunded" or
// "Refunded" (a 7.00 refund of 25.50 must not read "Paid").
func Badge(o *schema.Order) string {
	switch query.RefundedOf(o) {
	case query.RefundedPart:
		return RefundedPart
	case query.RefundedAll:
		return RefundedAll
	}
	return o.Status.String()
}

// ParseForm reads the form of merchant appid's orders page; a value it does not know is the person's
// mistake, shown on the page (400), not ignored.
func ParseForm(c *fiber.Ctx, appid string) (Form, error) {
	of := Form{Q: strings.TrimSpace(c.Query("q")), Status: c.Query("status"), Method: c.Query("method"),
		Currency: c.Query("currency"), From: c.Query("from"), To: c.Query("to")}
	of = Form{Q: strings.Clone(of.Q), Status: strings.Clone(of.Status), Method: strings.Clone(of.Method),
		Currency: strings.Clone(of.Currency), From: strings.Clone(of.From), To: strings.Clone(of.To)}
	f := query.Filter{AppID: appid, Page: max(1, c.QueryInt("page", 1)), Currency: of.Currency}
	if f.Page > 1_000_000 {
		return of, platform.Errorf(platform.KindInvalidParameter, "page is too large")
	}
	switch {
	case of.Q == "":
	case strings.Contains(of.Q, "@"):
		f.CustomerEmail = of.Q
	default:
		f.ClientOrderID = of.Q
	}
	switch of.Status {
	case RefundedPart, RefundedAll:
		paid := schema.StatusPaid
		f.Status = &paid
		f.Refunded = map[string]query.Refunded{RefundedPart: query.RefundedPart, RefundedAll: query.RefundedAll}[of.Status]
	case "":
	default:
		st, ok := schema.ParseStatus(of.Status)
		if !ok {
			return of, platform.Errorf(platform.KindInvalidParameter, "unknown status %q", of.Status)
		}
		f.Status = &st
	}
	if of.Method != "" {
		if !schema.Method(of.Method).Known() {
			return of, platform.Errorf(platform.KindInvalidParameter, "unknown payment method %q", of.Method)
		}
		f.Method = schema.Method(of.Method)
	}
	if of.Currency != "" && !schema.KnownCurrency(of.Currency) {
		return of, platform.Errorf(platform.KindInvalidParameter, "unknown currency %q", of.Currency)
	}
	var err error
	if f.From, err = day(of.From, "from"); err != nil {
		return of, err
	}
	if f.To, err = day(of.To, "to"); err != nil {
		return of, err
	}
	if !f.To.IsZero() {
		f.To = f.To.Add(24 * time.Hour) // "to" is the last day shown, included
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return of, platform.Errorf(platform.KindInvalidParameter, "from must be before to")
	}
	of.Query = f
	return of, nil
}

// day reads a date of the form's date fields (UTC days).
func day(v, name string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse("2006-01-02", v)
	if err != nil || t.Year() < 1971 || t.Year() > 2100 {
		return time.Time{}, platform.Errorf(platform.KindInvalidParameter, "%s must be a date like 2026-11-26", name)
	}
	return t, nil
}

// Page reads one page and the total through the ClickHouse gate, with the
// API's listing use case: the total of an unfiltered or status-only page
// from Redis' counters, of other filters from the report rollups.
func (r *Reader) Page(ctx *fiber.Ctx, f query.Filter) (int, []schema.Order, error) {
	release, err := r.gate.Acquire(ctx.UserContext(), f.AppID)
	if err != nil {
		return 0, nil, err
	}
	defer release()
	total, rows, err := r.reads.Listing.Page(ctx.UserContext(), f)
	if err != nil {
		return 0, nil, unavailable(err)
	}
	return total, rows, nil
}

func unavailable(err error) error {
	return &platform.Error{Kind: platform.KindUnavailable, Msg: "orders are unavailable; retry later", Err: err}
}

// MethodNames are the methods the form offers.
func MethodNames() []string {
	var out []string
	for _, m := range schema.AllMethods() {
		out = append(out, string(m))
	}
	return out
}

// Currencies are the currencies the form offers, sorted.
func Currencies() []string {
	var out []string
	for _, m := range schema.AllMethods() {
		for _, cur := range m.Currencies() {
			if !slices.Contains(out, cur) {
				out = append(out, cur)
			}
		}
	}
	slices.Sort(out)
	return out
}
