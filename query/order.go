package query

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

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
	QueryLimit platform.Limit // default per-merchant query rate
	// ReportMaxRange is the longest from..to of summary, timeseries and
	// export (DefaultReportMaxRange when zero).
	ReportMaxRange time.Duration
}

// Archive is the read model for orders Redis no longer keeps.
type Archive interface {
	Archived(ctx context.Context, appid, id string) (*schema.Order, error)
}

// Sources are the read models behind GET /api/order. Archive, Lister,
// Totals and Webhooks may be nil on a node without ClickHouse; what needs them then answers 503.
type Sources struct {
	Live     OrderReader
	Archive  Archive
	Lister   Lister
	Totals   Totals
	Webhooks WebhookLog
	Refunds  RefundReader // nil: action=order lists no refunds
	Reports  Reports      // nil: summary, timeseries and export answer 503
	// Gate shares ClickHouse between merchants (nil: no bound).
	Gate *FairGate
}

// Orders serves GET /api/order.
type Orders struct {
	cfg        Config
	accounts   Accounts
	live       OrderReader
	archive    Archive
	lister     Lister
	totals     Totals
	webhookLog WebhookLog
	refunds    RefundReader
	reports    Reports
	gate       *FairGate
	limiter    *platform.Limiter
	log        *slog.Logger
}

// NewOrders wires the query handler; a nil limiter applies no limit.
func NewOrders(cfg Config, accounts Accounts, src Sources, limiter *platform.Limiter, log *slog.Logger) (*Orders, error) {
	if cfg.PublicURL == "" {
		return nil, errors.New("query: public URL is empty")
	}
	if src.Live == nil {
		return nil, errors.New("query: no live read model")
	}
	return &Orders{cfg: cfg, accounts: accounts, live: src.Live, archive: src.Archive, lister: src.Lister, totals: src.Totals, webhookLog: src.Webhooks, refunds: src.Refunds, reports: src.Reports, gate: src.Gate, limiter: limiter, log: log}, nil
}

// Serve dispatches on action.
func (q *Orders) Serve(c *fiber.Ctx) error {
	acct, err := q.accounts.AuthQuery(c.UserContext(), c.Query("appid"), c.Query("key"))
	if err != nil {
		return err
	}
	if err := q.limiter.Allow(c.UserContext(), "query", acct.AppID, merchant.Limit(acct.QueryLimit, q.cfg.QueryLimit)); err != nil {
		return err
	}
	action := c.Query("action")
	if action == "" {
		return platform.Errorf(platform.KindMissingParameter, "parameter action is required")
	}
	if _, ok := actionParams[action]; !ok {
		return platform.Errorf(platform.KindInvalidParameter, "action %q is not supported (use order, orders, webhooks, summary, timeseries or export)", action)
	}
	if err := unknownParam(c, action); err != nil {
		return err
	}
	switch action {
	case "order":
		return q.one(c, acct)
	case "orders":
		return q.list(c, acct)
	case "webhooks":
		return q.webhooks(c, acct)
	case "summary":
		return q.summary(c, acct)
	case "timeseries":
		return q.timeseries(c, acct)
	default:
		return q.export(c, acct)
	}
}

func (q *Orders) one(c *fiber.Ctx, acct *merchant.Account) error {
	o, err := q.own(c, acct)
	if err != nil {
		return err
	}
	v, err := q.withRefunds(c.UserContext(), o)
	if err != nil {
		return err
	}
	return platform.OK(c, v)
}

// own reads the order paymentId names, if it is the merchant's. Another
// merchant's order is answered exactly like a missing one, so ids of other
// merchants cannot be probed.
func (q *Orders) own(c *fiber.Ctx, acct *merchant.Account) (*schema.Order, error) {
	id := c.Query("paymentId")
	if id == "" {
		return nil, platform.Errorf(platform.KindMissingParameter, "parameter paymentId is required")
	}
	o, err := q.find(c.UserContext(), acct.AppID, id)
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
