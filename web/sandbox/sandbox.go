// Package sandbox is the sandbox's simulated providers as the process
// mounts them: each family's simulator lives in its own package below
// (web/sandbox/<family>), speaking the provider's side of the family's
// protocol with the family's own encoders; the families themselves serve
// no HTTP.
package sandbox

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// Simulator is a family's sandbox provider as the process mounts it: its
// pages and API under the family's prefix, and the sandbox driver's way of
// settling a payment as a tester on its page would.
type Simulator interface {
	Register(r fiber.Router)
	Settle(ctx context.Context, ref string, paid bool) error
}

// Maker makes a family's simulator mounted at base, charging its
// channel's cost, keeping its state in st and sending its notifications
// through n.
type Maker func(base string, cost simkit.Cost, st provider.State, n *provider.Notifier, log *slog.Logger) Simulator

// Config is a simulator's configuration that takes the cost its account
// charges.
type Config[C any] interface {
	WithCost(simkit.Cost) C
}

// Make is the Maker of a simulator package: its sandbox configuration for
// a base address, and its constructor. Typed, so a simulator that does not
// fit fails to compile rather than at start.
func Make[C Config[C], S Simulator](config func(base string) C, build func(C, provider.State, *provider.Notifier, *slog.Logger) S) Maker {
	return func(base string, cost simkit.Cost, st provider.State, n *provider.Notifier, log *slog.Logger) Simulator {
		return build(config(base).WithCost(cost), st, n, log)
	}
}
