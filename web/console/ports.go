package console

import (
	"context"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
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

// Actions are the command side's operations the console offers. Declared
// here, where they are used, so the gateway binds them to whatever the
// command side calls them (command/ is being reshaped into use cases).
// Every method acts on an order the console has already checked belongs
// to the person's merchant.
type Actions interface {
	Refund(ctx context.Context, o *schema.Order, ask command.RefundAsk) (*schema.Refund, error)
	Cancel(ctx context.Context, id string) (*schema.Order, error)
	// Resend queues one more webhook attempt of the order (refundID "") or
	// of one of its refunds.
	Resend(ctx context.Context, appid, id, refundID string) error
	// SandboxMove pays or fails a sandbox order as its provider would.
	SandboxMove(ctx context.Context, o *schema.Order, to schema.Status) (*schema.Order, error)
}

// Auditor appends an entry to the audit log (audit.Log).
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
