package walletb

import (
	"crypto/rsa"
	_ "embed" // the sandbox key PEMs
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/internal/config"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// Family is the family's neutral name, used in metrics and state keys.
const Family = "wallet_b"

// Sandbox credentials: public test values (see sandbox/README.md).
var (
	//go:embed sandbox/merchant_private.pem
	SandboxMerchantPrivatePEM string
	//go:embed sandbox/merchant_public.pem
	SandboxMerchantPublicPEM string
	//go:embed sandbox/platform_private.pem
	SandboxPlatformPrivatePEM string
	//go:embed sandbox/platform_public.pem
	SandboxPlatformPublicPEM string
)

// Sandbox identifiers and the sandbox API v3 key.
const (
	SandboxMerchantID     = "1900000109"
	SandboxAppID          = "sandboxapp0000000001"
	SandboxMerchantSerial = "3775B6A45ACD588826D15E583A95F5DD00000001"
	SandboxPlatformSerial = "6A1F5E2B9C3D4E5F60718293A4B5C6D700000002"
	SandboxAPIv3Key       = "sandbox-apiv3-key-for-tests-0001"
)

// Defaults.
const (
	// DefaultAuthScheme names our Authorization header's scheme; the live
	// provider's own scheme name is configured instead.
	DefaultAuthScheme = "WALLETB2-SHA256-RSA2048"
	// DefaultMaxSkew is the replay window: a signed message whose time stamp
	// is further from our clock is refused.
	DefaultMaxSkew = 5 * time.Minute
	// DefaultPlatformCertRefresh is how often the platform certificates are
	// fetched: well inside the overlap the provider gives a rotation.
	DefaultPlatformCertRefresh = 12 * time.Hour
	// DefaultPlatformCertGap bounds the fetches an unknown serial causes.
	DefaultPlatformCertGap = time.Minute
)

// Config is one wallet_b merchant account. Operators write it as JSON with
// these snake_case names.
type Config struct {
	// BaseURL is the provider's API base; calls go to BaseURL+"/v3/pay/...".
	BaseURL    string `json:"base_url"`
	MerchantID string `json:"merchant_id"`
	AppID      string `json:"app_id"`
	// MerchantSerial is the serial of our merchant certificate, named in
	// the Authorization header; MerchantPrivateKeyPEM signs our calls.
	MerchantSerial        string `json:"merchant_serial"`
	MerchantPrivateKeyPEM string `json:"merchant_private_key_pem"`
	// PlatformPublicKeyPEM verifies answers and notifications that name
	// PlatformSerial in their serial header; PlatformKeys are more platform
	// keys trusted the same way (another certificate during a rotation).
	PlatformPublicKeyPEM string        `json:"platform_public_key_pem"`
	PlatformSerial       string        `json:"platform_serial"`
	PlatformKeys         []PlatformKey `json:"platform_keys"`
	// PlatformCertRefresh is how often the provider's certificates call is
	// asked for its current platform certificates (trusted besides the
	// configured keys); a message naming an unknown serial asks at once,
	// at most once per PlatformCertGap. "0s" never asks: an account whose
	// provider signs with one fixed public key.
	PlatformCertRefresh config.Duration `json:"platform_cert_refresh"`
	PlatformCertGap     config.Duration `json:"platform_cert_gap"`
	// APIv3Key (32 bytes) decrypts notification resources.
	APIv3Key string `json:"api_v3_key"`
	// HeaderPrefix is put before the signature headers' names (Timestamp,
	// Nonce, Signature, Serial); empty as in the vectors and the sandbox.
	HeaderPrefix string          `json:"header_prefix"`
	AuthScheme   string          `json:"auth_scheme"`
	MaxSkew      config.Duration `json:"max_skew"` // the replay window, e.g. "5m"
	// Now is the clock of the replay window (tests fix it to verify
	// messages with fixed time stamps); never configured.
	Now    func() time.Time      `json:"-"`
	Caller provider.CallerConfig `json:"caller"`
}

// Defaults is an account with our Authorization scheme and replay window;
// the credentials and the base address are the operator's.
func Defaults() Config {
	return Config{AuthScheme: DefaultAuthScheme, MaxSkew: config.Duration(DefaultMaxSkew), Now: time.Now,
		PlatformCertRefresh: config.Duration(DefaultPlatformCertRefresh), PlatformCertGap: config.Duration(DefaultPlatformCertGap)}
}

// CallBounds are the bounds of the calls to the provider.
func (c Config) CallBounds() provider.CallerConfig { return c.Caller }

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox credentials.
func SandboxConfig(simBaseURL string) Config {
	c := Defaults()
	c.BaseURL, c.MerchantID, c.AppID = simBaseURL, SandboxMerchantID, SandboxAppID
	c.MerchantSerial, c.MerchantPrivateKeyPEM = SandboxMerchantSerial, SandboxMerchantPrivatePEM
	c.PlatformPublicKeyPEM, c.PlatformSerial = SandboxPlatformPublicPEM, SandboxPlatformSerial
	c.APIv3Key = SandboxAPIv3Key
	return c
}

// withDefaults gives a Config built without Defaults the system clock.
func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if err := wire.CheckURL(c.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b base URL: %w", err))
	}
	for _, f := range []struct{ name, v string }{
		{"merchant id", c.MerchantID}, {"app id", c.AppID},
		{"merchant serial", c.MerchantSerial}, {"platform serial", c.PlatformSerial}, {"auth scheme", c.AuthScheme},
	} {
		if f.v == "" {
			errs = append(errs, fmt.Errorf("wallet_b %s is empty", f.name))
		}
	}
	if len(c.APIv3Key) != 32 {
		errs = append(errs, fmt.Errorf("wallet_b API v3 key must be 32 bytes, not %d", len(c.APIv3Key)))
	}
	if c.MaxSkew <= 0 {
		errs = append(errs, errors.New("wallet_b max skew must be positive"))
	}
	if _, err := rsakey.ParsePrivate(c.MerchantPrivateKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b merchant private key: %w", err))
	}
	if _, err := rsakey.ParsePublic(c.PlatformPublicKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b platform public key: %w", err))
	}
	errs = append(errs, c.validatePlatformKeys()...)
	if err := c.Caller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b %w", err))
	}
	return errors.Join(errs...)
}

// validatePlatformKeys: each extra key parses and has a serial no other
// key has; the refresh intervals are not negative.
func (c Config) validatePlatformKeys() []error {
	var errs []error
	seen := map[string]bool{normSerial(c.PlatformSerial): true}
	for i, k := range c.PlatformKeys {
		if k.Serial == "" || seen[normSerial(k.Serial)] {
			errs = append(errs, fmt.Errorf("wallet_b platform key %d: serial empty or given twice", i+1))
		}
		seen[normSerial(k.Serial)] = true
		if _, err := rsakey.ParsePublic(k.PublicKeyPEM); err != nil {
			errs = append(errs, fmt.Errorf("wallet_b platform key %d: %w", i+1, err))
		}
	}
	if c.PlatformCertRefresh < 0 || c.PlatformCertGap < 0 {
		errs = append(errs, errors.New("wallet_b platform certificate refresh and gap must not be negative"))
	}
	return errs
}

// keys are our merchant key and the configured platform keys by serial.
func (c Config) keys() (*rsa.PrivateKey, map[string]*rsa.PublicKey, error) {
	priv, err := rsakey.ParsePrivate(c.MerchantPrivateKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("wallet_b merchant private key: %w", err)
	}
	all := append([]PlatformKey{{Serial: c.PlatformSerial, PublicKeyPEM: c.PlatformPublicKeyPEM}}, c.PlatformKeys...)
	keys := make(map[string]*rsa.PublicKey, len(all))
	for _, k := range all {
		pub, err := rsakey.ParsePublic(k.PublicKeyPEM)
		if err != nil {
			return nil, nil, fmt.Errorf("wallet_b platform key %s: %w", k.Serial, err)
		}
		keys[normSerial(k.Serial)] = pub
	}
	return priv, keys, nil
}

// Registration is the family as the process registers it.
func Registration() provider.Family {
	return provider.NewFamily(provider.FamilyParts[Config, *Adapter]{Method: schema.MethodWalletB,
		Defaults: Defaults, New: New, SandboxConfig: SandboxConfig})
}
