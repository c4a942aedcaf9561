package console

import (
	"context"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

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
