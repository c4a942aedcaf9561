package bdcard

import (
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Registration is the bdcard store as the process registers it.
func Registration() provider.Family { return registration(FamilyCard) }

// PSPARegistration is the bdpsp_a store: the same protocol, its own
// credentials, notification prefix and simulator.
func PSPARegistration() provider.Family { return registration(FamilyPSPA) }

// registration is one of the two stores: the family is the method, whatever
// a configuration says.
func registration(family string) provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{
		Method:   schema.Method(family),
		Defaults: func() Config { return DefaultsFamily(family) },
		New: func(c Config, caller *provider.Caller) (*Adapter, error) {
			c.Family = family
			return New(c, caller)
		},
		SandboxConfig: func(base string) Config { return SandboxConfigFamily(family, base) },
	})
}
