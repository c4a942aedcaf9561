package bdcard

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// The two methods this protocol serves. Each has its own store (credentials),
// its own notification prefix and its own simulator.
const (
	FamilyCard = string(schema.MethodBDCard)
	FamilyPSPA = string(schema.MethodBDPSPA)
)

// The provider's API paths below its base address. The simulator serves the
// same paths, so an adapter pointed at it speaks exactly what it would speak
// to the provider.
const (
	DefaultSessionPath    = "/gwprocess/v4/api.php"
	DefaultValidationPath = "/validator/api/validationserverAPI.php"
	DefaultQueryPath      = "/validator/api/merchantTransIDvalidationAPI.php"
)

// Sandbox credentials: public test values, one store per family, used by the
// adapters pointed at the simulators and by the simulators themselves.
const (
	sandboxCardStoreID  = "bdcardsandbox01"
	sandboxCardPassword = "bdcard-sandbox-passwd"
	sandboxPSPAStoreID  = "bdpspasandbox01"
	sandboxPSPAPassword = "bdpspa-sandbox-passwd"
)

// Config is one store at the provider: where its API is and how we sign in.
type Config struct {
	// Family is the method this store serves (FamilyCard or FamilyPSPA); it
	// names errors and the simulator's keys.
	Family         string
	BaseURL        string // the provider's API base, without a trailing slash
	SessionPath    string
	ValidationPath string
	QueryPath      string
	StoreID        string
	// StorePassword is the store's API password. It is sent in the session,
	// validation and query calls, and its MD5 takes part in every
	// notification's signature. Never logged.
	StorePassword string
	Caller        provider.CallerConfig
}

// WithDefaults fills the paths and the family that are unset.
func (c Config) WithDefaults() Config {
	if c.Family == "" {
		c.Family = FamilyCard
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.SessionPath == "" {
		c.SessionPath = DefaultSessionPath
	}
	if c.ValidationPath == "" {
		c.ValidationPath = DefaultValidationPath
	}
	if c.QueryPath == "" {
		c.QueryPath = DefaultQueryPath
	}
	return c
}

// Validate lists every problem of the configuration (after defaults).
func (c Config) Validate() error {
	c = c.WithDefaults()
	var errs []error
	if c.Family != FamilyCard && c.Family != FamilyPSPA {
		errs = append(errs, fmt.Errorf("family %q: must be %s or %s", c.Family, FamilyCard, FamilyPSPA))
	}
	if err := schema.CheckURL(c.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("%s base URL: %w", c.Family, err))
	}
	for _, p := range [...]struct{ name, path string }{
		{"session", c.SessionPath}, {"validation", c.ValidationPath}, {"query", c.QueryPath},
	} {
		if !strings.HasPrefix(p.path, "/") {
			errs = append(errs, fmt.Errorf("%s %s path %q: must start with /", c.Family, p.name, p.path))
		}
	}
	if c.StoreID == "" {
		errs = append(errs, fmt.Errorf("%s store id: required", c.Family))
	}
	if c.StorePassword == "" {
		errs = append(errs, fmt.Errorf("%s store password: required", c.Family))
	}
	if c.Caller.Timeout < 0 || c.Caller.MaxBody < 0 || c.Caller.Retries < 0 {
		errs = append(errs, fmt.Errorf("%s caller: time-out, body bound and retries must not be negative", c.Family))
	}
	return errors.Join(errs...)
}

// SandboxConfig is the bdcard adapter pointed at its simulator, mounted at
// simBaseURL, with the sandbox store.
func SandboxConfig(simBaseURL string) Config { return SandboxConfigFamily(FamilyCard, simBaseURL) }

// SandboxConfigFamily is SandboxConfig for either family (bdcard, bdpsp_a).
func SandboxConfigFamily(family, simBaseURL string) Config {
	id, pw := sandboxStore(family)
	return Config{Family: family, BaseURL: simBaseURL, StoreID: id, StorePassword: pw}.WithDefaults()
}

func sandboxStore(family string) (id, password string) {
	if family == FamilyPSPA {
		return sandboxPSPAStoreID, sandboxPSPAPassword
	}
	return sandboxCardStoreID, sandboxCardPassword
}
