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
// Operators write it as JSON with these snake_case names.
type Config struct {
	// Family is the method this store serves (FamilyCard or FamilyPSPA); it
	// names errors and the simulator's keys. The registration sets it from
	// the method, so it is not part of the JSON.
	Family         string `json:"-"`
	BaseURL        string `json:"base_url"` // the provider's API base
	SessionPath    string `json:"session_path"`
	ValidationPath string `json:"validation_path"`
	QueryPath      string `json:"query_path"`
	StoreID        string `json:"store_id"`
	// StorePassword is the store's API password. It is sent in the session,
	// validation and query calls, and its MD5 takes part in every
	// notification's signature. Never logged.
	StorePassword string                `json:"store_password"`
	Caller        provider.CallerConfig `json:"caller"`
}

// Defaults is a bdcard store with the provider's paths; the credentials and
// the base address are the operator's.
func Defaults() Config { return DefaultsFamily(FamilyCard) }

// DefaultsFamily is Defaults for either family (bdcard, bdpsp_a).
func DefaultsFamily(family string) Config {
	return Config{Family: family, SessionPath: DefaultSessionPath, ValidationPath: DefaultValidationPath, QueryPath: DefaultQueryPath}
}

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
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
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%s %w", c.Family, err))
	}
	return errors.Join(errs...)
}

// SandboxConfig is the bdcard adapter pointed at its simulator, mounted at
// simBaseURL, with the sandbox store.
func SandboxConfig(simBaseURL string) Config { return SandboxConfigFamily(FamilyCard, simBaseURL) }

// SandboxConfigFamily is SandboxConfig for either family (bdcard, bdpsp_a).
func SandboxConfigFamily(family, simBaseURL string) Config {
	c := DefaultsFamily(family)
	c.BaseURL = simBaseURL
	c.StoreID, c.StorePassword = SandboxStore(family)
	return c
}

// SandboxStore is the sandbox store's credentials for family: what the
// sandbox adapter signs in with and the simulator accepts.
func SandboxStore(family string) (id, password string) {
	if family == FamilyPSPA {
		return sandboxPSPAStoreID, sandboxPSPAPassword
	}
	return sandboxCardStoreID, sandboxCardPassword
}
