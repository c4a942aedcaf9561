package cryptohost

import (
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter, SimConfig, *Simulator]{
		Method: schema.MethodCryptohost, Defaults: Defaults, New: New,
		SandboxConfig: SandboxConfig, NewSimulator: NewSimulator, SimConfig: SandboxSimConfig,
	})
}
