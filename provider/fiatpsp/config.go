package fiatpsp

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
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

// Config is the adapter's configuration for one environment.
type Config struct {
	// APIBase is the provider API's base address; the calls append
	// /currencies, /orders/create and /orders.
	APIBase string
	ShopID  int64  // our shop at the provider (MERCHANT_ID in notifications)
	APIKey  string // keys the HMAC of our calls
	Secret2 string // the notification secret
	// AllowedIPs, when not empty, are the only sources a notification is
	// accepted from (the provider publishes its addresses); empty is any.
	AllowedIPs []netip.Prefix
	// FallbackEmail is sent when the payer gave no e-mail (the provider
	// requires one); empty means such a payment is refused.
	FallbackEmail string
	Caller        provider.CallerConfig
}

// WithDefaults fills what is unset: the caller's time-out and answer bound
// (retries stay as given; they apply only to the idempotent calls).
func (c Config) WithDefaults() Config {
	if c.Caller.Timeout <= 0 {
		c.Caller.Timeout = 10 * time.Second
	}
	if c.Caller.MaxBody <= 0 {
		c.Caller.MaxBody = 256 << 10
	}
	c.APIBase = strings.TrimRight(c.APIBase, "/")
	return c
}

// Validate lists every problem of the configuration.
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.APIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("fiatpsp: APIBase %q must be an http(s) address", c.APIBase))
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
	if c.Caller.Timeout < 0 || c.Caller.MaxBody < 0 || c.Caller.Retries < 0 {
		errs = append(errs, errors.New("fiatpsp: Caller bounds must not be negative"))
	}
	return errors.Join(errs...)
}

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox credentials.
func SandboxConfig(simBaseURL string) Config {
	return Config{
		APIBase:       simBaseURL,
		ShopID:        SandboxShopID,
		APIKey:        SandboxAPIKey,
		Secret2:       SandboxSecret2,
		FallbackEmail: SandboxFallbackEmail,
	}.WithDefaults()
}
