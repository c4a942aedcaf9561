package cryptopsp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Family is the family's neutral name, its metric label and state prefix.
const Family = "cryptopsp"

// NotifyPath is the suffix under /api/gatewaynotification/cryptopsp/ that
// the gateway routes to Verify.
const NotifyPath = "ipn"

// Header defaults: SPEC.md names the signature header.
const (
	DefaultSignatureHeader = "x-cryptopsp-sig"
	DefaultAPIKeyHeader    = "x-api-key"
)

// Sandbox credentials: public test values shared by SandboxConfig and
// SandboxSimConfig.
const (
	SandboxAPIKey    = "sandbox-cryptopsp-api-key-71d0"
	SandboxIPNSecret = "sandbox-cryptopsp-ipn-secret-3f95"
)

// Config is one deployment's connection to the provider. Operators write it
// as JSON with these snake_case names.
type Config struct {
	BaseURL         string `json:"base_url"` // API root; the calls are under BaseURL+"/v1/"
	APIKey          string `json:"api_key"`
	IPNSecret       string `json:"ipn_secret"`
	SignatureHeader string `json:"signature_header"`
	APIKeyHeader    string `json:"api_key_header"`
	// OutcomeCurrency is the cryptocurrency the merchant account settles
	// in, the other side of the minimum-amount pair; empty asks for the
	// pair (crypto, crypto).
	OutcomeCurrency string                `json:"outcome_currency"`
	Caller          provider.CallerConfig `json:"caller"`
}

// Defaults is a connection with the provider's header names; the
// credentials and the base address are the operator's.
func Defaults() Config {
	return Config{SignatureHeader: DefaultSignatureHeader, APIKeyHeader: DefaultAPIKeyHeader}
}

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("cryptopsp: base URL %q is not an absolute http(s) URL", c.BaseURL))
	}
	if c.APIKey == "" {
		errs = append(errs, errors.New("cryptopsp: API key is missing"))
	}
	if c.IPNSecret == "" {
		errs = append(errs, errors.New("cryptopsp: IPN secret is missing"))
	}
	if strings.TrimSpace(c.SignatureHeader) == "" || strings.TrimSpace(c.APIKeyHeader) == "" {
		errs = append(errs, errors.New("cryptopsp: signature and API key header names must not be empty"))
	}
	if c.OutcomeCurrency != "" && !validCrypto(c.OutcomeCurrency) {
		errs = append(errs, fmt.Errorf("cryptopsp: outcome currency %q is not a lower-case currency code", c.OutcomeCurrency))
	}
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("cryptopsp: %w", err))
	}
	return errors.Join(errs...)
}

// SandboxConfig points the adapter at the simulator mounted at simBaseURL.
func SandboxConfig(simBaseURL string) Config {
	c := Defaults()
	c.BaseURL, c.APIKey, c.IPNSecret = simBaseURL, SandboxAPIKey, SandboxIPNSecret
	c.Caller = provider.CallerConfig{Timeout: 5 * time.Second, Retries: 2}
	return c
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodCryptoPSP,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
