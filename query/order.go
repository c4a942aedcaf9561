package query

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ErrNotFound is what a read model answers for an order it does not hold.
var ErrNotFound = errors.New("order not found")

// OrderReader is the read model action=order needs: one order by id.
type OrderReader interface {
	Order(ctx context.Context, id string) (*schema.Order, error)
}

// Accounts is the credential check the query side needs.
type Accounts interface {
	AuthQuery(ctx context.Context, appid, key string) (*merchant.Account, error)
}

// Config is what the query side needs to know.
type Config struct {
	PublicURL  string
	QueryLimit platform.Limit // default per-merchant rate of action=order and webhooks
	// ReportLimit is the default per-merchant rate of the ClickHouse reads
	// (orders, summary, timeseries, export): a budget apart from QueryLimit,
	// because ClickHouse serves a fraction of what Redis does and a merchant
	// paging through reports must not use up its order polls.
	ReportLimit platform.Limit
	// ReportMaxRange is the longest from..to of summary, timeseries and
	// export (DefaultReportMaxRange when zero).
	ReportMaxRange time.Duration
}

// DefaultReportLimit is ReportLimit when the config leaves it zero: about a
// quarter of what ClickHouse serves on the reference machine (~70 listings/s).
var DefaultReportLimit = platform.Limit{PerSecond: 20, Burst: 40}

// Defaults is what `gateway serve` gives the query side unless told
// otherwise; the public URL is the caller's.
func Defaults() Config {
	p := platform.Defaults()
	return Config{QueryLimit: p.Limits().Query, ReportLimit: DefaultReportLimit, ReportMaxRange: DefaultReportMaxRange}
}

// withDefaults fills the fields whose zero means "the default": the report
// rate (a zero rate, whatever its burst) and the report range. The query
// rate stays the caller's, as it always was.
func (c Config) withDefaults() Config {
	d := Defaults()
	if c.ReportLimit.PerSecond == 0 {
		c.ReportLimit = d.ReportLimit
	}
	if c.ReportMaxRange == 0 {
		c.ReportMaxRange = d.ReportMaxRange
	}
	return c
}

// Validate reports every bad value at once; it changes nothing.
func (c Config) Validate() error {
	var errs []error
	if c.PublicURL == "" {
		errs = append(errs, errors.New("query: public URL is empty"))
	}
	if c.QueryLimit.PerSecond < 0 || c.ReportLimit.PerSecond <= 0 {
		errs = append(errs, errors.New("query: the query rate must not be negative, the report rate must be positive"))
	}
	if c.ReportMaxRange <= 0 {
		errs = append(errs, errors.New("query: the report range must be positive"))
	}
	return errors.Join(errs...)
}

// Archive is the read model for orders Redis no longer keeps.
type Archive interface {
	Archived(ctx context.Context, appid, id string) (*schema.Order, error)
}

// Sources are the read models behind GET /api/order. Archive, Listing
// and Webhooks may be nil on a node without ClickHouse; what needs them then answers 503.
type Sources struct {
	Live     OrderReader
	Archive  Archive
	Listing  *Listing // the listing use case, shared with the consoles
	Webhooks WebhookLog
	Refunds  RefundReader // nil: action=order lists no refunds
	Reports  Reports      // nil: summary, timeseries and export answer 503
	// Gate shares ClickHouse between merchants (nil: no bound).
	Gate *FairGate
}

// Orders are the use cases of GET /api/order (web/api serves it): the
// merchant's admission (Admit), then one action each.
type Orders struct {
	cfg        Config
	accounts   Accounts
	live       OrderReader
	archive    Archive
	listing    *Listing
	webhookLog WebhookLog
	refunds    RefundReader
	reports    Reports
	gate       *FairGate
	limiter    *platform.Limiter
	log        *slog.Logger
}

// NewOrders wires the query use cases; a nil limiter applies no limit.
func NewOrders(cfg Config, accounts Accounts, src Sources, limiter *platform.Limiter, log *slog.Logger) (*Orders, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if src.Live == nil {
		return nil, errors.New("query: no live read model")
	}
	return &Orders{cfg: cfg, accounts: accounts, live: src.Live, archive: src.Archive, listing: src.Listing, webhookLog: src.Webhooks, refunds: src.Refunds, reports: src.Reports, gate: src.Gate, limiter: limiter, log: log}, nil
}

// Admit is the checks every action starts with, in this order: the
// merchant's query key, its budget for the action's class, then the action
// named and supported. The door checks the parameters next (UnknownParam).
func (q *Orders) Admit(ctx context.Context, appid, key, action string) (*merchant.Account, error) {
	acct, err := q.accounts.AuthQuery(ctx, appid, key)
	if err != nil {
		return nil, err
	}
	if err := q.allow(ctx, acct, action); err != nil {
		return nil, err
	}
	if action == "" {
		return nil, platform.Errorf(platform.KindMissingParameter, "parameter action is required")
	}
	if _, ok := actionParams[action]; !ok {
		return nil, platform.Errorf(platform.KindInvalidParameter, "action %q is not supported (use order, orders, webhooks, summary, timeseries or export)", action)
	}
	return acct, nil
}

// reportActions are the actions that read ClickHouse, limited by the
// report class rather than the query class.
var reportActions = map[string]bool{"orders": true, "summary": true, "timeseries": true, "export": true}

// allow spends one request of the merchant's budget for action's class.
func (q *Orders) allow(ctx context.Context, acct *merchant.Account, action string) error {
	if reportActions[action] {
		return q.limiter.Allow(ctx, platform.ClassReport, acct.AppID, merchant.Limit(acct.ReportLimit, q.cfg.ReportLimit))
	}
	return q.limiter.Allow(ctx, platform.ClassQuery, acct.AppID, merchant.Limit(acct.QueryLimit, q.cfg.QueryLimit))
}

// Order is action=order for the authenticated merchant acct: the order
// with its refunds.
func (q *Orders) Order(ctx context.Context, acct *merchant.Account, args Args) (schema.OrderView, error) {
	o, err := q.own(ctx, acct, args)
	if err != nil {
		return schema.OrderView{}, err
	}
	return q.withRefunds(ctx, o)
}

// own reads the order paymentId names, if it is the merchant's. Another
// merchant's order is answered exactly like a missing one, so ids of other
// merchants cannot be probed.
func (q *Orders) own(ctx context.Context, acct *merchant.Account, args Args) (*schema.Order, error) {
	id := args.Query("paymentId")
	if id == "" {
		return nil, platform.Errorf(platform.KindMissingParameter, "parameter paymentId is required")
	}
	o, err := q.find(ctx, acct.AppID, id)
	if errors.Is(err, ErrNotFound) || (err == nil && o.AppID != acct.AppID) {
		return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	return o, err
}

// find reads Redis first; an order Redis no longer keeps (past retention)
// comes from ClickHouse, answered the same way.
func (q *Orders) find(ctx context.Context, appid, id string) (*schema.Order, error) {
	o, err := q.live.Order(ctx, id)
	if !errors.Is(err, ErrNotFound) || q.archive == nil {
		return o, err
	}
	return q.archive.Archived(ctx, appid, id)
}
