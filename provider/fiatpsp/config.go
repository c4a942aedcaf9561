package fiatpsp

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// Family is the family's neutral name: its caller's metric label, its
// notification path segment and its simulator's mount point.
const Family = "fiatpsp"

// NotifyPath is the path suffix, after the family's notification prefix
// (/api/gatewaynotification/fiatpsp/), that the gateway routes to Verify.
const NotifyPath = "notify"

// Sandbox credentials: public test values shared by SandboxConfig and
// SandboxSimConfig, so that a sandbox order runs the live verification code.
const (
	SandboxShopID  int64 = 10001
	SandboxAPIKey        = "sandbox_fiatpsp_api_key_7Hq2"
	SandboxSecret2       = "sandbox_fiatpsp_secret2_Lm5x"
	// SandboxFallbackEmail stands in for a payer who gave no e-mail: the
	// provider requires one.
	SandboxFallbackEmail = "sandbox-payer@example.com"
)

// Config is the adapter's configuration for one environment. Operators
// write it as JSON with these snake_case names.
type Config struct {
	// BaseURL is the provider API's base address; the calls append
	// /currencies, /orders/create and /orders.
	BaseURL string `json:"base_url"`
	ShopID  int64  `json:"shop_id"` // our shop at the provider (MERCHANT_ID in notifications)
	APIKey  string `json:"api_key"` // keys the HMAC of our calls
	Secret2 string `json:"secret2"` // the notification secret
	// AllowedIPs, when not empty, are the only sources a notification is
	// accepted from (the provider publishes its addresses); empty is any.
	AllowedIPs []netip.Prefix `json:"allowed_ips"`
	// FallbackEmail is sent when the payer gave no e-mail (the provider
	// requires one); empty means such a payment is refused.
	FallbackEmail string                `json:"fallback_email"`
	Caller        provider.CallerConfig `json:"caller"`
}

// Defaults bounds the provider's answers tighter than other families' (its
// answers are small); the time-out stays the process's provider time-out.
// Retries stay as given: they apply only to the idempotent calls.
func Defaults() Config { return Config{Caller: provider.CallerConfig{MaxBody: 256 << 10}} }

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("fiatpsp: base URL %q must be an http(s) address", c.BaseURL))
	}
	if c.ShopID <= 0 {
		errs = append(errs, errors.New("fiatpsp: ShopID must be a positive integer"))
	}
	if c.APIKey == "" {
		errs = append(errs, errors.New("fiatpsp: APIKey is required"))
	}
	if c.Secret2 == "" {
		errs = append(errs, errors.New("fiatpsp: Secret2 is required"))
	}
	for i, p := range c.AllowedIPs {
		if !p.IsValid() {
			errs = append(errs, fmt.Errorf("fiatpsp: AllowedIPs[%d] is not a valid prefix", i))
		}
	}
	if c.FallbackEmail != "" && !strings.Contains(c.FallbackEmail, "@") {
		errs = append(errs, fmt.Errorf("fiatpsp: FallbackEmail %q is not an e-mail address", c.FallbackEmail))
	}
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("fiatpsp: %w", err))
	}
	return errors.Join(errs...)
}

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox credentials.
func SandboxConfig(simBaseURL string) Config {
	c := Defaults()
	c.BaseURL, c.ShopID, c.APIKey, c.Secret2 = simBaseURL, SandboxShopID, SandboxAPIKey, SandboxSecret2
	c.FallbackEmail = SandboxFallbackEmail
	return c
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodFiatPSP,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
