package walletb

import (
	"crypto/rsa"
	_ "embed" // the sandbox key PEMs
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/rsakey"
	"github.com/paygate/gateway/provider/internal/wire"
)

// Family is the family's neutral name, used in metrics and state keys.
const Family = "wallet_b"

// Sandbox credentials: public test values (see sandbox/README.md).
var (
	//go:embed sandbox/merchant_private.pem
	sandboxMerchantPrivatePEM string
	//go:embed sandbox/merchant_public.pem
	sandboxMerchantPublicPEM string
	//go:embed sandbox/platform_private.pem
	sandboxPlatformPrivatePEM string
	//go:embed sandbox/platform_public.pem
	sandboxPlatformPublicPEM string
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
)

// Config is one wallet_b merchant account.
type Config struct {
	// BaseURL is the provider's API base; calls go to BaseURL+"/v3/pay/...".
	BaseURL    string
	MerchantID string
	AppID      string
	// MerchantSerial is the serial of our merchant certificate, named in
	// the Authorization header; MerchantPrivateKeyPEM signs our calls.
	MerchantSerial        string
	MerchantPrivateKeyPEM string
	// PlatformPublicKeyPEM verifies answers and notifications, which must
	// name PlatformSerial in their serial header.
	PlatformPublicKeyPEM string
	PlatformSerial       string
	// APIv3Key (32 bytes) decrypts notification resources.
	APIv3Key string
	// HeaderPrefix is put before the signature headers' names (Timestamp,
	// Nonce, Signature, Serial); empty as in the vectors and the sandbox.
	HeaderPrefix string
	AuthScheme   string        // DefaultAuthScheme when empty
	MaxSkew      time.Duration // DefaultMaxSkew when zero
	// Now is the clock of the replay window; time.Now when nil (tests fix
	// it to verify messages with fixed time stamps).
	Now    func() time.Time
	Caller provider.CallerConfig
}

// SandboxConfig is the adapter pointed at the simulator mounted at
// simBaseURL, with the sandbox credentials.
func SandboxConfig(simBaseURL string) Config {
	return Config{
		BaseURL: simBaseURL, MerchantID: SandboxMerchantID, AppID: SandboxAppID,
		MerchantSerial: SandboxMerchantSerial, MerchantPrivateKeyPEM: sandboxMerchantPrivatePEM,
		PlatformPublicKeyPEM: sandboxPlatformPublicPEM, PlatformSerial: SandboxPlatformSerial,
		APIv3Key: SandboxAPIv3Key,
	}
}

func (c Config) withDefaults() Config {
	if c.AuthScheme == "" {
		c.AuthScheme = DefaultAuthScheme
	}
	if c.MaxSkew == 0 {
		c.MaxSkew = DefaultMaxSkew
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate lists every problem of the configuration.
func (c Config) Validate() error {
	var errs []error
	if err := wire.CheckURL(c.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b base URL: %w", err))
	}
	for _, f := range []struct{ name, v string }{
		{"merchant id", c.MerchantID}, {"app id", c.AppID},
		{"merchant serial", c.MerchantSerial}, {"platform serial", c.PlatformSerial},
	} {
		if f.v == "" {
			errs = append(errs, fmt.Errorf("wallet_b %s is empty", f.name))
		}
	}
	if len(c.APIv3Key) != 32 {
		errs = append(errs, fmt.Errorf("wallet_b API v3 key must be 32 bytes, not %d", len(c.APIv3Key)))
	}
	if c.MaxSkew < 0 {
		errs = append(errs, errors.New("wallet_b max skew is negative"))
	}
	if _, err := rsakey.ParsePrivate(c.MerchantPrivateKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b merchant private key: %w", err))
	}
	if _, err := rsakey.ParsePublic(c.PlatformPublicKeyPEM); err != nil {
		errs = append(errs, fmt.Errorf("wallet_b platform public key: %w", err))
	}
	return errors.Join(errs...)
}

func (c Config) keys() (*rsa.PrivateKey, *rsa.PublicKey, error) {
	priv, err := rsakey.ParsePrivate(c.MerchantPrivateKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("wallet_b merchant private key: %w", err)
	}
	pub, err := rsakey.ParsePublic(c.PlatformPublicKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("wallet_b platform public key: %w", err)
	}
	return priv, pub, nil
}

// SimConfig is the simulator's side of the sandbox.
type SimConfig struct {
	BaseURL               string // its own public base, for the code URLs
	MerchantID            string // the merchant it accepts calls from
	MerchantSerial        string // the serial our calls must name
	MerchantPublicKeyPEM  string // checks our Authorization signatures
	PlatformPrivateKeyPEM string // signs answers and notifications
	PlatformSerial        string
	APIv3Key              string // encrypts notification resources
	HeaderPrefix          string
	AuthScheme            string // DefaultAuthScheme when empty
}

// SandboxSimConfig is the simulator with the sandbox credentials, the
// counterpart of SandboxConfig.
func SandboxSimConfig(baseURL string) SimConfig {
	return SimConfig{
		BaseURL: baseURL, MerchantID: SandboxMerchantID, MerchantSerial: SandboxMerchantSerial,
		MerchantPublicKeyPEM: sandboxMerchantPublicPEM, PlatformPrivateKeyPEM: sandboxPlatformPrivatePEM,
		PlatformSerial: SandboxPlatformSerial, APIv3Key: SandboxAPIv3Key,
	}
}
