package cryptohost

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
const Family = "cryptohost"

// NotifyPath is the suffix under /api/gatewaynotification/cryptohost/ that
// the gateway routes to Verify.
const NotifyPath = "webhook"

// Header defaults (see the package comment).
const (
	DefaultSignatureHeader = "X-Signature"
	DefaultAPIKeyHeader    = "X-Api-Key"
	DefaultVersionHeader   = "X-Api-Version"
	DefaultAPIVersion      = "2018-03-22"
)

// Sandbox credentials: public test values shared by SandboxConfig and
// SandboxSimConfig, so the adapter and the simulator trust each other.
const (
	SandboxAPIKey        = "sandbox-cryptohost-api-key-4c1e"
	SandboxWebhookSecret = "sandbox-cryptohost-webhook-secret-d82a"
)

// Config is one deployment's connection to the provider. Operators write it
// as JSON with these snake_case names.
type Config struct {
	BaseURL         string `json:"base_url"` // API root; charges are at BaseURL+"/charges"
	APIKey          string `json:"api_key"`
	WebhookSecret   string `json:"webhook_secret"` // the shared secret of the webhook subscription
	APIVersion      string `json:"api_version"`
	SignatureHeader string `json:"signature_header"`
	APIKeyHeader    string `json:"api_key_header"`
	VersionHeader   string `json:"version_header"`
	// ChargeName is the charge's name when the order has no description.
	ChargeName string                `json:"charge_name"`
	Caller     provider.CallerConfig `json:"caller"`
}

// Defaults is a connection with the provider's header names and API
// version; the credentials and the base address are the operator's.
func Defaults() Config {
	return Config{APIVersion: DefaultAPIVersion, SignatureHeader: DefaultSignatureHeader,
		APIKeyHeader: DefaultAPIKeyHeader, VersionHeader: DefaultVersionHeader, ChargeName: "Order"}
}

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("cryptohost: base URL %q is not an absolute http(s) URL", c.BaseURL))
	}
	if c.APIKey == "" {
		errs = append(errs, errors.New("cryptohost: API key is missing"))
	}
	if c.WebhookSecret == "" {
		errs = append(errs, errors.New("cryptohost: webhook secret is missing"))
	}
	for _, f := range [...]struct{ name, v string }{{"API version", c.APIVersion}, {"signature header", c.SignatureHeader},
		{"API key header", c.APIKeyHeader}, {"version header", c.VersionHeader}, {"charge name", c.ChargeName}} {
		if strings.TrimSpace(f.v) == "" {
			errs = append(errs, fmt.Errorf("cryptohost: %s is empty", f.name))
		}
	}
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("cryptohost: %w", err))
	}
	return errors.Join(errs...)
}

// SandboxConfig points the adapter at the simulator mounted at simBaseURL.
func SandboxConfig(simBaseURL string) Config {
	c := Defaults()
	c.BaseURL, c.APIKey, c.WebhookSecret = simBaseURL, SandboxAPIKey, SandboxWebhookSecret
	c.Caller = provider.CallerConfig{Timeout: 5 * time.Second, Retries: 2}
	return c
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodCryptohost,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
