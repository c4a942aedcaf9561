package walletb

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	family "github.com/paygate/gateway/provider/walletb"

	"github.com/gofiber/fiber/v2"
)

// platform is the simulated provider's platform certificates: the one it
// signs with and the ones it still lists (a rotation lists old and new, as
// the provider does, so that a gateway can fetch the new one before it
// sees it in use).
type platform struct {
	mu     sync.RWMutex
	key    *rsa.PrivateKey
	serial string
	certs  []listedCert
	calls  atomic.Int64 // certificates calls answered
}

type listedCert struct {
	serial   string
	pem      []byte
	from, to time.Time
}

// signer is the current platform key and its serial.
func (p *platform) signer() (*rsa.PrivateKey, string) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.key, p.serial
}

// add makes key (with serial, hex) the signing key and lists its
// certificate.
func (p *platform) add(key *rsa.PrivateKey, serial string) error {
	n, ok := new(big.Int).SetString(serial, 16)
	if !ok {
		return fmt.Errorf("platform serial %q is not hex", serial)
	}
	from, to := time.Now().Add(-time.Hour), time.Now().AddDate(5, 0, 0)
	tmpl := &x509.Certificate{SerialNumber: n, Subject: pkix.Name{CommonName: "sandbox platform " + serial},
		NotBefore: from, NotAfter: to, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("platform certificate: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.key, p.serial = key, serial
	p.certs = append(p.certs, listedCert{serial: serial, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), from: from, to: to})
	return nil
}

// Rotate moves the simulated provider to a new platform certificate: from
// now on it signs answers and notifications with the new key, and lists
// both certificates. It returns the new serial. The key lives in this
// simulator (this process), for tests and a single-process sandbox.
func (s *Simulator) Rotate() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", fmt.Errorf("wallet_b simulator rotate: %w", err)
	}
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	b[0] &= 0x7f // a positive serial of 20 bytes
	serial := strings.ToUpper(fmt.Sprintf("%x", b))
	if err := s.plat.add(key, serial); err != nil {
		return "", err
	}
	return serial, nil
}

// CertificateCalls is how many certificates calls the simulator answered.
func (s *Simulator) CertificateCalls() int64 { return s.plat.calls.Load() }

// certificates answers the certificates call: every listed certificate,
// sealed with the API v3 key.
func (s *Simulator) certificates(c *fiber.Ctx) error {
	if ok, err := s.guard(c); !ok {
		return err
	}
	s.plat.calls.Add(1)
	s.plat.mu.RLock()
	listed := append([]listedCert(nil), s.plat.certs...)
	s.plat.mu.RUnlock()
	var ans family.CertificatesAnswer
	for _, lc := range listed {
		r, err := family.Seal([]byte(s.cfg.APIv3Key), lc.pem, "certificate")
		if err != nil {
			return fmt.Errorf("wallet_b simulator certificates: %w", err)
		}
		ans.Data = append(ans.Data, family.PlatformCert{
			SerialNo: lc.serial, EffectiveTime: lc.from.In(family.ProviderZone).Format(time.RFC3339),
			ExpireTime: lc.to.In(family.ProviderZone).Format(time.RFC3339),
			Encrypted:  family.EncryptedPEM{Algorithm: r.Algorithm, Nonce: r.Nonce, AssociatedData: r.AssociatedData, Ciphertext: r.Ciphertext},
		})
	}
	return s.reply(c, fiber.StatusOK, ans)
}
