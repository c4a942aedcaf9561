package provider

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/paygate/gateway/schema"
)

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
// serves, how its live configuration is read and its sandbox adapter (its
// simulator is web/sandbox's, attached by the process). Each family package offers its own (walleta.Registration());
// the process only lists them.
type Family struct {
	Method  schema.Method
	decode  func(raw json.RawMessage) (Build, error)
	sandbox func(simBase string, c *Caller) (Adapter, error)
}

// FamilyParts are a family package's constructors, as NewFamily takes them.
type FamilyParts[C LiveConfig, A Adapter] struct {
	Method schema.Method
	// Defaults is the configuration an operator's JSON is read over.
	Defaults func() C
	New      func(C, *Caller) (A, error)
	// SandboxConfig is the sandbox's adapter, pointed at the simulator's
	// base address.
	SandboxConfig func(simBase string) C
}

// NewFamily is the typed registration of a family.
func NewFamily[C LiveConfig, A Adapter](p FamilyParts[C, A]) Family {
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
	}
}

// Decode reads a live configuration (JSON over the family's defaults,
// unknown fields refused) and validates it, listing every problem; the
// Build it answers makes the adapter without reading it again.
func (f Family) Decode(raw json.RawMessage) (Build, error) { return f.decode(raw) }

// Sandbox is the family's adapter pointed at its simulator at simBase.
func (f Family) Sandbox(simBase string, c *Caller) (Adapter, error) { return f.sandbox(simBase, c) }
