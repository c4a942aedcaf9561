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
	// ProviderPublicKeyPEM verifies the provider's answers and notifications
	// (public-key mode; empty in certificate mode).
	ProviderPublicKeyPEM string `json:"provider_public_key_pem"`
	// Certificate mode, for an account the provider set up with
	// certificates: AppCertPEM is our app's public-key certificate the
	// provider issued, ProviderCertPEM the provider's public-key
	// certificate (whose key verifies its answers and notifications),
	// RootCertPEM the provider's root certificate file. Their serials are
	// sent with every call. All three or none.
	AppCertPEM      string `json:"app_cert_pem"`
	ProviderCertPEM string `json:"provider_cert_pem"`
	RootCertPEM     string `json:"root_cert_pem"`
	// CertParamPrefix is put before the names of the root serial parameter
	// ("root_cert_sn") and of the answers' certificate serial ("cert_sn"):
	// empty in the sandbox, the provider's own prefix live.
	CertParamPrefix string `json:"cert_param_prefix"`
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
	priv, err := rsakey.ParsePrivate(c.AppPrivateKeyPEM)
	if err != nil {
		errs = append(errs, fmt.Errorf("wallet_a app private key: %w", err))
	}
	if c.CertMode() {
		errs = append(errs, c.validateCerts(priv)...)
	} else if _, err := rsakey.ParsePublic(c.ProviderPublicKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a provider public key: %w", err))
	}
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a %w", err))
	}
	return errors.Join(errs...)
}

// CertMode says the account uses certificates: any certificate given
// means that mode (and then all three are required), so a half-configured
// certificate account is refused rather than run in public-key mode.
func (c Config) CertMode() bool {
	return c.AppCertPEM != "" || c.ProviderCertPEM != "" || c.RootCertPEM != ""
}

// validateCerts lists the problems of certificate mode: each certificate
// parses, the app certificate is for our app key, and the provider's key
// comes from one place only.
func (c Config) validateCerts(priv *rsa.PrivateKey) []error {
	var errs []error
	if c.ProviderPublicKeyPEM != "" {
		errs = append(errs, errors.New("wallet_a provider public key is set in certificate mode: the key is the provider certificate's; leave it empty"))
	}
	if pub, err := CertPublicKey(c.AppCertPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a app certificate: %w", err))
	} else if priv != nil && !pub.Equal(&priv.PublicKey) {
		errs = append(errs, errors.New("wallet_a app certificate is not for the app private key"))
	}
	if _, err := CertPublicKey(c.ProviderCertPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a provider certificate: %w", err))
	} else if _, err := CertSN(c.ProviderCertPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a provider certificate: %w", err))
	}
	if _, err := RootCertSN(c.RootCertPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_a root certificate: %w", err))
	}
	return errs
}

// credentials are what the adapter holds, parsed once (Validate has said
// they parse).
type credentials struct {
	appKey      *rsa.PrivateKey
	providerKey *rsa.PublicKey
	// Certificate mode only: the serials sent with each call, and the one
	// the provider's answers name.
	appCertSN, rootCertSN, providerCertSN string
}

func (c Config) credentials() (credentials, error) {
	var cr credentials
	var err error
	if cr.appKey, err = rsakey.ParsePrivate(c.AppPrivateKeyPEM); err != nil {
		return cr, fmt.Errorf("wallet_a app private key: %w", err)
	}
	if !c.CertMode() {
		if cr.providerKey, err = rsakey.ParsePublic(c.ProviderPublicKeyPEM); err != nil {
			return cr, fmt.Errorf("wallet_a provider public key: %w", err)
		}
		return cr, nil
	}
	if cr.providerKey, err = CertPublicKey(c.ProviderCertPEM); err != nil {
		return cr, fmt.Errorf("wallet_a provider certificate: %w", err)
	}
	if cr.appCertSN, err = CertSN(c.AppCertPEM); err != nil {
		return cr, fmt.Errorf("wallet_a app certificate: %w", err)
	}
	if cr.providerCertSN, err = CertSN(c.ProviderCertPEM); err != nil {
		return cr, fmt.Errorf("wallet_a provider certificate: %w", err)
	}
	if cr.rootCertSN, err = RootCertSN(c.RootCertPEM); err != nil {
		return cr, fmt.Errorf("wallet_a root certificate: %w", err)
	}
	return cr, nil
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodWalletA,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
