package console

import (
	"context"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
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

// Actions are the use cases of the order page's forms
// (command.MerchantOrders and dispatcher.Webhooks.Resend, bound by
// cmd/gateway). Each checks that the order is by's merchant's and writes
// the audit entry; the page only parses, calls and renders.
type Actions interface {
	// Refund refunds amount (0: what is left) for a required reason.
	Refund(ctx context.Context, by access.Actor, id string, amount schema.Amount, reason string) (*schema.Refund, error)
	Cancel(ctx context.Context, by access.Actor, id string) (*schema.Order, error)
	// Resend queues one more webhook attempt of the order (refundID "") or
	// of one of its refunds.
	Resend(ctx context.Context, by access.Actor, id, refundID string) error
	// SandboxMove pays or fails a sandbox order as its provider would.
	SandboxMove(ctx context.Context, by access.Actor, id string, to schema.Status) (*schema.Order, error)
}

// Auditor appends an entry to the audit log (audit.Log): the export's.
type Auditor interface {
	Append(ctx context.Context, e audit.Entry) (string, error)
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
