// Package provider is the seam between orders and payment providers: what
// the create path asks of a provider, the registry that picks one per method
// and per merchant kind, and the sandbox that simulates every provider.
package provider

import (
	"context"

	"github.com/paygate/gateway/schema"
)

// Init is what initialising a payment gives back. All of it is stored on the
// order, so a replayed create answers the same without asking again.
type Init struct {
	ProviderURL string // where the provider takes the payer, if it does
	QRPayload   string // what the payer scans, for QR methods
	NextAction  string // a choice the payer makes on our pages first
}

// Provider initialises payments for one or more methods.
type Provider interface {
	Initialise(ctx context.Context, o *schema.Order) (Init, error)
	// Local reports that Initialise does no I/O and cannot fail by load, so
	// the create path may call it before the order is stored and save the
	// order ready in one script. A remote provider is called after the order
	// is stored pending, and its answer moves the order to ready.
	Local() bool
}

// Registry picks the provider for an order: the sandbox for every method of
// a sandbox merchant; for a live merchant, the provider configured for the
// method, or none (the merchant gets method_unavailable).
type Registry struct {
	sandbox Provider
	live    map[schema.Method]Provider
}

// NewRegistry builds a registry; live may be empty.
func NewRegistry(sandbox Provider, live map[schema.Method]Provider) *Registry {
	return &Registry{sandbox: sandbox, live: live}
}

// For returns the provider for method, or false when none serves it.
func (r *Registry) For(m schema.Method, sandbox bool) (Provider, bool) {
	if sandbox {
		return r.sandbox, r.sandbox != nil
	}
	p, ok := r.live[m]
	return p, ok
}
