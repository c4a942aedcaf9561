// Package rsakey holds the RSA pieces both wallet families share: reading
// PEM keys and RSASSA-PKCS1-v1_5 SHA-256 signatures carried in base64.
// Each family's sign.go decides what is signed; this package only how.
package rsakey

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
)

// minBits refuses toy keys: a provider key under 2048 bits is a mistake.
const minBits = 2048

// ParsePrivate reads a PKCS #8 ("PRIVATE KEY") or PKCS #1 ("RSA PRIVATE
// KEY") PEM block.
func ParsePrivate(pemText string) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var key *rsa.PrivateKey
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse PKCS #8 key: %w", err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("not an RSA key")
		}
		key = rk
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse PKCS #1 key: %w", err)
		}
		key = k
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if key.N.BitLen() < minBits {
		return nil, fmt.Errorf("key of %d bits, want at least %d", key.N.BitLen(), minBits)
	}
	return key, nil
}

// ParsePublic reads a PKIX ("PUBLIC KEY") or PKCS #1 ("RSA PUBLIC KEY") PEM
// block.
func ParsePublic(pemText string) (*rsa.PublicKey, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var key *rsa.PublicKey
	switch block.Type {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse PKIX key: %w", err)
		}
		rk, ok := k.(*rsa.PublicKey)
		if !ok {
			return nil, errors.New("not an RSA key")
		}
		key = rk
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse PKCS #1 key: %w", err)
		}
		key = k
	default:
		return nil, fmt.Errorf("PEM block %q is not a public key", block.Type)
	}
	if key.N.BitLen() < minBits {
		return nil, fmt.Errorf("key of %d bits, want at least %d", key.N.BitLen(), minBits)
	}
	return key, nil
}

// Sign is base64(RSASSA-PKCS1-v1_5(SHA-256(msg))).
func Sign(key *rsa.PrivateKey, msg []byte) (string, error) {
	sum := sha256.Sum256(msg)
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("rsa sign: %w", err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// ErrBadSignature is a signature that is not base64 or does not verify.
var ErrBadSignature = errors.New("rsa signature does not verify")

// Verify checks a base64 signature made by Sign.
func Verify(key *rsa.PublicKey, msg []byte, sigB64 string) error {
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil || len(sig) != key.Size() {
		return ErrBadSignature
	}
	sum := sha256.Sum256(msg)
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil {
		return ErrBadSignature
	}
	return nil
}
