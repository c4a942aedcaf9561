package platform

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Providers are the live providers' configurations by method: the file's,
// and over them those of the GATEWAY_PROVIDER_<METHOD> variables. Each is
// the family's JSON, for the family's registration to decode.
func (c *Config) Providers() map[schema.Method]json.RawMessage {
	out := maps.Clone(c.providersFile)
	if out == nil {
		out = map[schema.Method]json.RawMessage{}
	}
	maps.Copy(out, c.providersEnv)
	return out
}

// readProvidersFile reads the providers file named by the flag or
// GATEWAY_PROVIDERS_FILE: {"<method>": {...}}.
func (c *Config) readProvidersFile(file string) error {
	c.ProvidersFile, c.providersFile = file, nil
	if file == "" {
		return nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("providers file: %w", err)
	}
	out := map[schema.Method]json.RawMessage{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("providers file %s: %w", file, err)
	}
	c.providersFile = out
	return nil
}

// providersFromEnv reads the GATEWAY_PROVIDER_<METHOD> variables, one
// method's JSON each.
func providersFromEnv() map[schema.Method]json.RawMessage {
	out := map[schema.Method]json.RawMessage{}
	for _, m := range schema.AllMethods() {
		if v := os.Getenv("GATEWAY_PROVIDER_" + strings.ToUpper(string(m))); v != "" {
			out[m] = json.RawMessage(v)
		}
	}
	return out
}
