package walleta

import (
	"crypto/rsa"
	_ "embed" // the sandbox key PEMs
	"errors"
	"fmt"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// Family is the family's neutral name, used in metrics and state keys.
const Family = "wallet_a"

// Sandbox credentials: public test values (see sandbox/README.md).
var (
	//go:embed sandbox/app_private.pem
	SandboxAppPrivatePEM string
	//go:embed sandbox/app_public.pem
	SandboxAppPublicPEM string
	//go:embed sandbox/provider_private.pem
	SandboxProviderPrivatePEM string
	//go:embed sandbox/provider_public.pem
	SandboxProviderPublicPEM string
)

// SandboxAppID is the app id of the sandbox adapter at the simulator.
const SandboxAppID = "2000000000000001"

// Config is one wallet_a account: where its API is and our credentials.
// Operators write it as JSON with these snake_case names.
type Config struct {
	// BaseURL is the provider's API address; every call is a form POST to
	// it, the call named by its method parameter.
	BaseURL string `json:"base_url"`
	// AppID is our application's id at the provider.
	AppID string `json:"app_id"`
	// AppPrivateKeyPEM signs our calls (PKCS #8 or PKCS #1 PEM).
	AppPrivateKeyPEM string `json:"app_private_key_pem"`
	// ProviderPublicKeyPEM verifies the provider's answers and notifications.
	ProviderPublicKeyPEM string `json:"provider_public_key_pem"`
	// MethodPrefix is put before the API's method names ("trade.precreate",
	// "trade.query"); empty in the sandbox, the provider's own prefix live.
	MethodPrefix string                `json:"method_prefix"`
	Caller       provider.CallerConfig `json:"caller"`
}

// Defaults is an account with nothing set: every field is the operator's
// (the method prefix stays empty unless the provider has one).
func Defaults() Config { return Config{} }

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox credentials.
func SandboxConfig(simBaseURL string) Config {
	c := Defaults()
	c.BaseURL, c.AppID = simBaseURL+"/gateway", SandboxAppID
	c.AppPrivateKeyPEM, c.ProviderPublicKeyPEM = SandboxAppPrivatePEM, SandboxProviderPublicPEM
	return c
}

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if err := wire.CheckURL(c.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a base URL: %w", err))
	}
	if c.AppID == "" {
		errs = append(errs, errors.New("wallet_a app id is empty"))
	}
	if _, err := rsakey.ParsePrivate(c.AppPrivateKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a app private key: %w", err))
	}
	if _, err := rsakey.ParsePublic(c.ProviderPublicKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a provider public key: %w", err))
	}
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a %w", err))
	}
	return errors.Join(errs...)
}

// keys parses the configured keys (Validate has said they parse).
func (c Config) keys() (*rsa.PrivateKey, *rsa.PublicKey, error) {
	priv, err := rsakey.ParsePrivate(c.AppPrivateKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("wallet_a app private key: %w", err)
	}
	pub, err := rsakey.ParsePublic(c.ProviderPublicKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("wallet_a provider public key: %w", err)
	}
	return priv, pub, nil
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodWalletA,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
