package operator

import (
	"context"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/schema"
)

// Resender is the one webhook resend (a *dispatcher.Webhooks): it checks
// the actor's role and appends the audit entry in the resend's own script.
type Resender interface {
	Resend(ctx context.Context, ask dispatcher.ResendAsk) error
}

// OrderReader reads an order (a *command.Store).
type OrderReader interface {
	Get(ctx context.Context, id string) (*schema.Order, error)
}
