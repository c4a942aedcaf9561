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
	sandboxStoreID      = "bdpspbsandbox01"
	sandboxSignatureKey = "bdpspb-sandbox-signature-key"
)

// Config is our merchant account at the provider.
type Config struct {
	BaseURL    string // the provider's API base, without a trailing slash
	CreatePath string
	SearchPath string
	StoreID    string
	// SignatureKey is the account's static API key. The provider wants it in
	// the body of the create call and in the query of the search call; it is
	// never logged, and scrubbed from the errors of those calls.
	SignatureKey string
	Caller       provider.CallerConfig
}

// WithDefaults fills the paths that are unset.
func (c Config) WithDefaults() Config {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.CreatePath == "" {
		c.CreatePath = DefaultCreatePath
	}
	if c.SearchPath == "" {
		c.SearchPath = DefaultSearchPath
	}
	return c
}

// Validate lists every problem of the configuration (after defaults).
func (c Config) Validate() error {
	c = c.WithDefaults()
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
	if c.Caller.Timeout < 0 || c.Caller.MaxBody < 0 || c.Caller.Retries < 0 {
		errs = append(errs, fmt.Errorf("%s caller: time-out, body bound and retries must not be negative", Family))
	}
	return errors.Join(errs...)
}

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox account.
func SandboxConfig(simBaseURL string) Config {
	return Config{BaseURL: simBaseURL, StoreID: sandboxStoreID, SignatureKey: sandboxSignatureKey}.WithDefaults()
}
