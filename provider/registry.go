package provider

import "github.com/paygate/gateway/schema"

// Registry picks the adapter for an order's method: the sandbox's adapters
// (real adapters pointed at the simulators) for a sandbox merchant, the live
// ones for a live merchant. A method without an adapter is unavailable.
type Registry struct {
	sandbox map[schema.Method]Adapter
	live    map[schema.Method]Adapter
}

// NewRegistry builds a registry; either map may be empty.
func NewRegistry(sandbox, live map[schema.Method]Adapter) *Registry {
	return &Registry{sandbox: sandbox, live: live}
}

// For returns the adapter for method, or false when none serves it.
func (r *Registry) For(m schema.Method, sandbox bool) (Adapter, bool) {
	if sandbox {
		a, ok := r.sandbox[m]
		return a, ok
	}
	a, ok := r.live[m]
	return a, ok
}

// Methods lists the methods served for a merchant kind.
func (r *Registry) Methods(sandbox bool) []schema.Method {
	src := r.live
	if sandbox {
		src = r.sandbox
	}
	var out []schema.Method
	for _, m := range schema.AllMethods() {
		if _, ok := src[m]; ok {
			out = append(out, m)
		}
	}
	return out
}
