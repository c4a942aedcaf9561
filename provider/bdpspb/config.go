package bdpspb

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Family is the method this package serves; it names the caller's metrics,
// errors and the simulator's keys.
const Family = string(schema.MethodBDPSPB)

// The provider's API paths below its base address; the simulator serves the
// same ones.
const (
	DefaultCreatePath = "/jsonpost.php"
	DefaultSearchPath = "/api/v1/trxcheck/request.php"
)

// Sandbox credentials: public test values shared by SandboxConfig and
// SandboxSimConfig.
const (
	SandboxStoreID      = "bdpspbsandbox01"
	SandboxSignatureKey = "bdpspb-sandbox-signature-key"
)

// Config is our merchant account at the provider. Operators write it as
// JSON with these snake_case names.
type Config struct {
	BaseURL    string `json:"base_url"` // the provider's API base
	CreatePath string `json:"create_path"`
	SearchPath string `json:"search_path"`
	StoreID    string `json:"store_id"`
	// SignatureKey is the account's static API key. The provider wants it in
	// the body of the create call and in the query of the search call; it is
	// never logged, and scrubbed from the errors of those calls.
	SignatureKey string                `json:"signature_key"`
	Caller       provider.CallerConfig `json:"caller"`
}

// Defaults is an account with the provider's paths; the credentials and the
// base address are the operator's.
func Defaults() Config { return Config{CreatePath: DefaultCreatePath, SearchPath: DefaultSearchPath} }

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if err := schema.CheckURL(c.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("%s base URL: %w", Family, err))
	}
	for _, p := range [...]struct{ name, path string }{{"create", c.CreatePath}, {"search", c.SearchPath}} {
		if !strings.HasPrefix(p.path, "/") {
			errs = append(errs, fmt.Errorf("%s %s path %q: must start with /", Family, p.name, p.path))
		}
	}
	if c.StoreID == "" {
		errs = append(errs, fmt.Errorf("%s store id: required", Family))
	}
	if c.SignatureKey == "" {
		errs = append(errs, fmt.Errorf("%s signature key: required", Family))
	}
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%s %w", Family, err))
	}
	return errors.Join(errs...)
}

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox account.
func SandboxConfig(simBaseURL string) Config {
	c := Defaults()
	c.BaseURL, c.StoreID, c.SignatureKey = simBaseURL, SandboxStoreID, SandboxSignatureKey
	return c
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodBDPSPB,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
