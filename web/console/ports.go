package console

import (
	"context"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
)

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
