package cryptohost

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

var (
	errNoSignature  = errors.New("no signature header")
	errBadSignature = errors.New("signature does not match the body")
)

// Sign is the webhook signature: lower-case hex HMAC-SHA256 of the raw body
// bytes under the shared secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// VerifySignature checks sig against the body exactly as received: the
// provider signs bytes, so any re-serialisation (even a space) breaks it.
func VerifySignature(secret string, body []byte, sig string) error {
	sig = strings.TrimSpace(sig)
	if sig == "" {
		return errNoSignature
	}
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return errBadSignature
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return errBadSignature
	}
	return nil
}
