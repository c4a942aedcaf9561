package orderview

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/web/frame"
)

// Config is the reader's settings.
type Config struct {
	PageSize int // orders per page (default 25)
	Now      func() time.Time
}

// Defaults are the reader's settings when none are given.
func Defaults() Config { return Config{PageSize: 25, Now: time.Now} }

// withDefaults fills the unset fields (zero or below) from Defaults.
func (c Config) withDefaults() Config {
	d := Defaults()
	if c.PageSize <= 0 {
		c.PageSize = d.PageSize
	}
	if c.Now == nil {
		c.Now = d.Now
	}
	return c
}

// Validate checks the settings; it fills nothing.
func (c Config) Validate() error {
	if c.PageSize < 1 || c.Now == nil {
		return fmt.Errorf("order view: page size %d must be positive, and a clock is required", c.PageSize)
	}
	return nil
}

// Gate shares ClickHouse between merchants (query.FairGate); nil: none.
type Gate interface {
	Acquire(ctx context.Context, appid string) (func(), error)
}

type noGate struct{}

func (noGate) Acquire(context.Context, string) (func(), error) { return func() {}, nil }

// Reader reads a merchant's orders for a console's pages. It is built
// without any write, so nothing it returns can lead to one, and every
// order it shows is checked to be appid's: the operator console's audited
// view of a merchant's console reads through it exactly as the merchant
// console does for a merchant user.
type Reader struct {
	cfg   Config
	reads Reads
	gate  Gate
}

// New reads through reads (the query side's read models) and gate (nil:
// none).
func New(cfg Config, reads Reads, gate Gate) (*Reader, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if reads.Live == nil || reads.Listing == nil || reads.Reports == nil {
		return nil, errors.New("console read-only view: live orders, listing and reports are required")
	}
	if gate == nil {
		gate = noGate{}
	}
	return &Reader{cfg: cfg, reads: reads, gate: gate}, nil
}

// Orders is one page of appid's orders for the orders page's query
// (q, status, method, currency, from, to, page); base is where the pager
// links to. A paymentId in q is searched as a clientOrderId: the view
// links each row to its detail instead of redirecting.
func (r *Reader) Orders(ctx *fiber.Ctx, appid, base string) (*OrderList, error) {
	of, err := ParseForm(ctx, appid)
	if err != nil {
		return nil, err
	}
	ov := &OrderList{F: of, Statuses: Statuses(), Methods: MethodNames(), Currency: Currencies()}
	of.Query.Limit = r.cfg.PageSize
	total, rows, err := r.Page(ctx, of.Query)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		ov.Rows = append(ov.Rows, RowOf(&rows[i]))
	}
	q, _ := url.ParseQuery(string(ctx.Request().URI().QueryString()))
	ov.Pager = frame.NewPager(base, q, of.Query.Page, r.cfg.PageSize, total).Showing(len(rows))
	return ov, nil
}

// Order is appid's order id with its timeline; another merchant's order
// or an unknown id is the console's "no such order" (404). No action is
// offered (every Can field is false).
func (r *Reader) Order(ctx context.Context, appid, id string) (*OrderDetail, error) {
	o, err := r.Own(ctx, appid, id)
	if err != nil {
		return nil, err
	}
	return r.Detail(ctx, o)
}

// Statuses are the statuses the form offers: the order's statuses, and the
// refund states of a paid order (Badge).
func Statuses() []string {
	return []string{"pending", "ready", "paid", RefundedPart, RefundedAll, "failed", "cancelled"}
}
