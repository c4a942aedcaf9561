package cryptopsp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
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

// Config is one deployment's connection to the provider.
type Config struct {
	BaseURL         string // API root; the calls are under BaseURL+"/v1/"
	APIKey          string
	IPNSecret       string
	SignatureHeader string
	APIKeyHeader    string
	// OutcomeCurrency is the cryptocurrency the merchant account settles
	// in, the other side of the minimum-amount pair; empty asks for the
	// pair (crypto, crypto).
	OutcomeCurrency string
	Caller          provider.CallerConfig
}

func (c Config) withDefaults() Config {
	if strings.TrimSpace(c.SignatureHeader) == "" {
		c.SignatureHeader = DefaultSignatureHeader
	}
	if strings.TrimSpace(c.APIKeyHeader) == "" {
		c.APIKeyHeader = DefaultAPIKeyHeader
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	c = c.withDefaults()
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
	if c.OutcomeCurrency != "" && !validCrypto(c.OutcomeCurrency) {
		errs = append(errs, fmt.Errorf("cryptopsp: outcome currency %q is not a lower-case currency code", c.OutcomeCurrency))
	}
	if c.Caller.Timeout < 0 || c.Caller.MaxBody < 0 || c.Caller.Retries < 0 {
		errs = append(errs, errors.New("cryptopsp: caller time-out, body bound and retries must not be negative"))
	}
	return errors.Join(errs...)
}

// SandboxConfig points the adapter at the simulator mounted at simBaseURL.
func SandboxConfig(simBaseURL string) Config {
	return Config{
		BaseURL:   simBaseURL,
		APIKey:    SandboxAPIKey,
		IPNSecret: SandboxIPNSecret,
		Caller:    provider.CallerConfig{Timeout: 5 * time.Second, Retries: 2},
	}.withDefaults()
}
