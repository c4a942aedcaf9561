package cryptohost

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
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

// Config is one deployment's connection to the provider.
type Config struct {
	BaseURL         string // API root; charges are at BaseURL+"/charges"
	APIKey          string
	WebhookSecret   string // the shared secret of the webhook subscription
	APIVersion      string
	SignatureHeader string
	APIKeyHeader    string
	VersionHeader   string
	// ChargeName is the charge's name when the order has no description.
	ChargeName string
	Caller     provider.CallerConfig
}

// withDefaults fills what is unset.
func (c Config) withDefaults() Config {
	set := func(v *string, d string) {
		if strings.TrimSpace(*v) == "" {
			*v = d
		}
	}
	set(&c.APIVersion, DefaultAPIVersion)
	set(&c.SignatureHeader, DefaultSignatureHeader)
	set(&c.APIKeyHeader, DefaultAPIKeyHeader)
	set(&c.VersionHeader, DefaultVersionHeader)
	set(&c.ChargeName, "Order")
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	c = c.withDefaults()
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
	if c.Caller.Timeout < 0 || c.Caller.MaxBody < 0 || c.Caller.Retries < 0 {
		errs = append(errs, errors.New("cryptohost: caller time-out, body bound and retries must not be negative"))
	}
	return errors.Join(errs...)
}

// SandboxConfig points the adapter at the simulator mounted at simBaseURL.
func SandboxConfig(simBaseURL string) Config {
	return Config{
		BaseURL:       simBaseURL,
		APIKey:        SandboxAPIKey,
		WebhookSecret: SandboxWebhookSecret,
		Caller:        provider.CallerConfig{Timeout: 5 * time.Second, Retries: 2},
	}.withDefaults()
}
