package walletb

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/provider"
)

// The provider signs with one platform certificate at a time and moves to
// a new one before the old expires; for a while both are live, and a
// notification names the one it was signed with in its serial header. So
// the adapter keeps a ring of platform keys by serial: the configured ones
// always, and those the provider's certificates call lists (refreshed
// periodically, and at once, at most once per gap, when a message names a
// serial the ring does not have). Rotation then needs no restart and no
// configuration change.

// PathCertificates is the provider's certificates call.
const PathCertificates = "/v3/certificates"

// PlatformKey is one platform certificate's public key and its serial.
type PlatformKey struct {
	Serial       string `json:"serial"`
	PublicKeyPEM string `json:"public_key_pem"`
}

// CertificatesAnswer is the certificates call's answer: each platform
// certificate sealed with the API v3 key.
type CertificatesAnswer struct {
	Data []PlatformCert `json:"data"`
}

// PlatformCert is one listed certificate.
type PlatformCert struct {
	SerialNo      string       `json:"serial_no"`
	EffectiveTime string       `json:"effective_time"`
	ExpireTime    string       `json:"expire_time"`
	Encrypted     EncryptedPEM `json:"encrypt_certificate"`
}

// EncryptedPEM is a certificate's PEM sealed like a notification resource
// (associated data "certificate").
type EncryptedPEM struct {
	Algorithm      string `json:"algorithm"`
	Nonce          string `json:"nonce"`
	AssociatedData string `json:"associated_data"`
	Ciphertext     string `json:"ciphertext"`
}

// normSerial is a serial as the ring keys it: hex, upper case.
func normSerial(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// keyring is the adapter's platform keys.
type keyring struct {
	configured map[string]*rsa.PublicKey
	refresh    time.Duration // periodic; 0: never fetched
	gap        time.Duration // least time between fetches for an unknown serial
	now        func() time.Time
	fetch      func(ctx context.Context) (map[string]*rsa.PublicKey, error)

	mu           sync.RWMutex
	fetched      map[string]*rsa.PublicKey
	lastFetch    time.Time // last fetch begun (periodic or on demand)
	lastOnDemand time.Time
	fetchMu      sync.Mutex  // one fetch at a time
	background   atomic.Bool // a periodic fetch is running
}

// key is the platform key of serial: a known one at once; an unknown one
// after fetching the provider's list, when a fetch for an unknown serial
// was not made within the gap. A due periodic fetch starts in the
// background and does not hold the caller up.
func (k *keyring) key(ctx context.Context, serial string) (*rsa.PublicKey, error) {
	serial = normSerial(serial)
	k.startPeriodic()
	if pub, ok := k.lookup(serial); ok {
		return pub, nil
	}
	if k.refresh <= 0 {
		return nil, fmt.Errorf("signed by platform serial %q, which is not configured: %w", clipSerial(serial), provider.ErrSignature)
	}
	if !k.onDemandAllowed() {
		return nil, fmt.Errorf("signed by platform serial %q, unknown (the certificates were fetched within %v): %w", clipSerial(serial), k.gap, provider.ErrSignature)
	}
	if err := k.update(ctx); err != nil {
		return nil, fmt.Errorf("signed by platform serial %q, unknown, and the certificates call failed (%v): %w", clipSerial(serial), err, provider.ErrSignature)
	}
	if pub, ok := k.lookup(serial); ok {
		return pub, nil
	}
	return nil, fmt.Errorf("signed by platform serial %q, which the provider does not list: %w", clipSerial(serial), provider.ErrSignature)
}

func clipSerial(s string) string {
	if len(s) > 64 {
		return s[:64]
	}
	return s
}

func (k *keyring) lookup(serial string) (*rsa.PublicKey, bool) {
	if pub, ok := k.configured[serial]; ok {
		return pub, true
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	pub, ok := k.fetched[serial]
	return pub, ok
}

// onDemandAllowed takes the on-demand slot when the gap has passed: a
// stream of messages naming made-up serials costs one call per gap.
func (k *keyring) onDemandAllowed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if !k.lastOnDemand.IsZero() && now.Sub(k.lastOnDemand) < k.gap {
		return false
	}
	k.lastOnDemand = now
	return true
}

func (k *keyring) startPeriodic() {
	if k.refresh <= 0 {
		return
	}
	k.mu.RLock()
	due := k.now().Sub(k.lastFetch) >= k.refresh
	k.mu.RUnlock()
	if !due || !k.background.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer k.background.Store(false)
		_ = k.update(context.Background()) // the caller's time-out bounds it; a failure keeps the keys
	}()
}

// update fetches the provider's list and makes it the fetched keys (a
// certificate no longer listed drops out; the configured stay).
func (k *keyring) update(ctx context.Context) error {
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	k.mu.Lock()
	k.lastFetch = k.now()
	k.mu.Unlock()
	keys, err := k.fetch(ctx)
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.fetched = keys
	k.mu.Unlock()
	return nil
}

// fetchCertificates is the certificates call: each certificate opened with
// the API v3 key (which proves it is the provider's: only the provider and
// we hold that key), its serial checked against the one listed, expired
// ones left out; then the answer's own signature checked with the keys
// the ring already had or the listed ones.
func (a *Adapter) fetchCertificates(ctx context.Context) (map[string]*rsa.PublicKey, error) {
	ans, err := a.send(ctx, "certificates", true, http.MethodGet, PathCertificates, nil)
	if err != nil {
		return nil, err
	}
	if ans.Status != http.StatusOK {
		return nil, refusal("certificates", ans)
	}
	var list CertificatesAnswer
	if err := json.Unmarshal(ans.Body, &list); err != nil {
		return nil, fmt.Errorf("certificates answer: %w", errors.Join(provider.ErrMalformed, err))
	}
	keys := map[string]*rsa.PublicKey{}
	for _, c := range list.Data {
		pub, err := a.openCert(c)
		if err != nil {
			return nil, err
		}
		if pub != nil {
			keys[normSerial(c.SerialNo)] = pub
		}
	}
	h := readSigHeaders(ans.Header, a.cfg.HeaderPrefix)
	pub, ok := keys[normSerial(h.Serial)]
	if !ok {
		pub, ok = a.keys.lookup(normSerial(h.Serial))
	}
	if !ok {
		return nil, fmt.Errorf("certificates answer signed by serial %q, neither known nor listed: %w", clipSerial(h.Serial), provider.ErrSignature)
	}
	if err := a.v.check(pub, h, ans.Body); err != nil {
		return nil, fmt.Errorf("certificates answer: %w", err)
	}
	return keys, nil
}

// openCert decrypts one listed certificate; nil for an expired one.
func (a *Adapter) openCert(c PlatformCert) (*rsa.PublicKey, error) {
	e := c.Encrypted
	plain, err := Resource{Algorithm: e.Algorithm, Ciphertext: e.Ciphertext, AssociatedData: e.AssociatedData, Nonce: e.Nonce}.decrypt(a.apiv3)
	if err != nil {
		return nil, fmt.Errorf("platform certificate %q: %w", clipSerial(c.SerialNo), err)
	}
	block, _ := pem.Decode(plain)
	if block == nil {
		return nil, fmt.Errorf("platform certificate %q is not PEM: %w", clipSerial(c.SerialNo), provider.ErrMalformed)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("platform certificate %q: %w", clipSerial(c.SerialNo), errors.Join(provider.ErrMalformed, err))
	}
	listed, ok := new(big.Int).SetString(normSerial(c.SerialNo), 16)
	if !ok || listed.Cmp(cert.SerialNumber) != 0 {
		return nil, fmt.Errorf("platform certificate listed as %q has serial %X: %w", clipSerial(c.SerialNo), cert.SerialNumber, provider.ErrMalformed)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("platform certificate %q: not an RSA key: %w", clipSerial(c.SerialNo), provider.ErrMalformed)
	}
	if a.cfg.Now().After(cert.NotAfter) {
		return nil, nil
	}
	return pub, nil
}
