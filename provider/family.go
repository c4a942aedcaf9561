package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// Simulator is a family's sandbox provider as the process mounts it: its
// pages and API under the family's prefix, and the sandbox driver's way of
// settling a payment as a tester on its page would.
type Simulator interface {
	Register(r fiber.Router)
	Settle(ctx context.Context, ref string, paid bool) error
}

// LiveConfig is what the registration needs of a family's Config: that it
// checks itself, and the bounds of its calls. Asking for them by method,
// not by a field found by reflection, makes a family that lacks them fail
// to compile rather than panic at start.
type LiveConfig interface {
	Validate() error
	CallBounds() CallerConfig
}

// Build makes a live adapter from a configuration already decoded and
// validated; caller turns the configuration's bounds into the Caller.
type Build func(caller func(CallerConfig) *Caller) (Adapter, error)

// Family is one provider family as the process registers it: the method it
// serves, how its live configuration is read, its sandbox adapter and its
// simulator. Each family package offers its own (walleta.Registration());
// the process only lists them.
type Family struct {
	Method  schema.Method
	decode  func(raw json.RawMessage) (Build, error)
	sandbox func(simBase string, c *Caller) (Adapter, error)
	sim     func(simBase string, st State, n *Notifier, log *slog.Logger) Simulator
}

// FamilyParts are a family package's constructors, as NewFamily takes them.
type FamilyParts[C LiveConfig, A Adapter, SC any, S Simulator] struct {
	Method schema.Method
	// Defaults is the configuration an operator's JSON is read over.
	Defaults func() C
	New      func(C, *Caller) (A, error)
	// SandboxConfig and SimConfig are the adapter and the simulator of the
	// sandbox, both pointed at the simulator's base address.
	SandboxConfig func(simBase string) C
	NewSimulator  func(SC, State, *Notifier, *slog.Logger) S
	SimConfig     func(simBase string) SC
}

// NewFamily is the typed registration of a family.
func NewFamily[C LiveConfig, A Adapter, SC any, S Simulator](p FamilyParts[C, A, SC, S]) Family {
	return Family{
		Method: p.Method,
		decode: func(raw json.RawMessage) (Build, error) {
			cfg := p.Defaults()
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&cfg); err != nil {
				return nil, fmt.Errorf("configuration: %w", err)
			}
			if err := cfg.Validate(); err != nil {
				return nil, err
			}
			return func(caller func(CallerConfig) *Caller) (Adapter, error) {
				return p.New(cfg, caller(cfg.CallBounds()))
			}, nil
		},
		sandbox: func(base string, c *Caller) (Adapter, error) { return p.New(p.SandboxConfig(base), c) },
		sim: func(base string, st State, n *Notifier, log *slog.Logger) Simulator {
			return p.NewSimulator(p.SimConfig(base), st, n, log)
		},
	}
}

// Decode reads a live configuration (JSON over the family's defaults,
// unknown fields refused) and validates it, listing every problem; the
// Build it answers makes the adapter without reading it again.
func (f Family) Decode(raw json.RawMessage) (Build, error) { return f.decode(raw) }

// Sandbox is the family's adapter pointed at its simulator at simBase.
func (f Family) Sandbox(simBase string, c *Caller) (Adapter, error) { return f.sandbox(simBase, c) }

// Simulator is the family's simulator, mounted at simBase.
func (f Family) Simulator(simBase string, st State, n *Notifier, log *slog.Logger) Simulator {
	return f.sim(simBase, st, n, log)
}
