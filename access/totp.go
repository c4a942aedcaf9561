package access

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
	"github.com/skip2/go-qrcode"
)

// TOTP is RFC 6238 with the parameters every authenticator app knows:
// SHA-1, 6 digits, 30-second steps. A code is accepted one step either
// side of now (clock drift, a code typed as it turned), and each step at
// most once per account: the login script keeps the last step used and
// refuses any step not after it, so a code seen over a shoulder or replayed
// from a proxy's log is useless.
const (
	totpPeriod = 30
	totpSkew   = 1
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Enrolment is what a setup page shows: the secret as text, the otpauth://
// URL and that URL as a PNG QR code (drawn here; no asset from elsewhere).
type Enrolment struct {
	Secret string
	URL    string
	QRPNG  []byte
}

// newEnrolment makes a fresh secret (160 bits, RFC 4226's recommendation)
// for account email.
func (a *Accounts) newEnrolment(email string) (*Enrolment, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: a.cfg.Issuer, AccountName: email, Period: totpPeriod,
		SecretSize: 20, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, fmt.Errorf("generate TOTP secret: %w", err)
	}
	qr, err := qrcode.New(key.URL(), qrcode.Medium)
	if err != nil {
		return nil, fmt.Errorf("draw TOTP QR code: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, qr.Image(256)); err != nil {
		return nil, fmt.Errorf("encode TOTP QR code: %w", err)
	}
	return &Enrolment{Secret: key.Secret(), URL: key.URL(), QRPNG: buf.Bytes()}, nil
}

// matchStep returns the time step whose code is code, within the skew
// around now, or 0. It computes every candidate and compares each in
// constant time, so the answer's timing says nothing about which matched.
func matchStep(secret, code string, now time.Time) uint64 {
	if len(code) != 6 {
		return 0
	}
	cur := uint64(now.Unix()) / totpPeriod
	var found uint64
	for off := -totpSkew; off <= totpSkew; off++ {
		step := uint64(int64(cur) + int64(off))
		want, err := hotp.GenerateCodeCustom(secret, step, totpOpts)
		if err != nil {
			return 0
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found = step
		}
	}
	return found
}

// Recovery codes: ten groups of 50 random bits, "xxxxx-xxxxx" in lower-case
// base32, shown once, stored as SHA-256 hashes, each usable once.
var recoveryEnc = base32.StdEncoding.WithPadding(base32.NoPadding)

func newRecoveryCodes(n int) (codes, hashes []string) {
	for range n {
		b := make([]byte, 7)
		_, _ = rand.Read(b)
		s := strings.ToLower(recoveryEnc.EncodeToString(b))[:10]
		code := s[:5] + "-" + s[5:]
		codes, hashes = append(codes, code), append(hashes, digest(code))
	}
	return codes, hashes
}

// recoveryForm reports whether code looks like a recovery code, and gives
// its one spelling (lower case, spaces dropped).
func recoveryForm(code string) (string, bool) {
	c := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(code), " ", ""))
	if len(c) != 11 || c[5] != '-' {
		return "", false
	}
	return c, true
}
