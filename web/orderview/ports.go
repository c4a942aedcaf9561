package orderview

import (
	"context"

	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// Orders reads one order: the live one in Redis, else the archive.
type Orders interface {
	Order(ctx context.Context, id string) (*schema.Order, error)
}

// Archive is the read model of orders Redis no longer keeps.
type Archive interface {
	Archived(ctx context.Context, appid, id string) (*schema.Order, error)
}

// Notifications reads the provider notifications an order received, with
// their verdicts, newest first.
type Notifications interface {
	Notifications(ctx context.Context, id string) ([]schema.NotificationRecord, error)
}

// Listing is the orders listing use case (query.Listing), shared with the
// API's action=orders: a page and its total, taken the cheap way.
type Listing interface {
	Page(ctx context.Context, f query.Filter) (total int, orders []schema.Order, err error)
}

// Reads are the query side's read models the pages draw on.
type Reads struct {
	Live          Orders
	Archive       Archive
	Listing       Listing
	Reports       query.Reports
	Webhooks      query.WebhookLog
	Refunds       query.RefundReader
	Notifications Notifications
}
