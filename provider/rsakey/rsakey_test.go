package rsakey

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"
)

func TestSignVerify(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := ParsePrivate(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ParsePublic(string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := Sign(priv, []byte("message"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		msg  string
		sig  string
		ok   bool
	}{
		{"same message", "message", sig, true},
		{"other message", "messagE", sig, false},
		{"not base64", "message", "!!", false},
		{"short signature", "message", "AAAA", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(pub, []byte(tt.msg), tt.sig)
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrBadSignature)) {
				t.Fatalf("Verify = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	smallPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(small)}))
	tests := []struct {
		name string
		pem  string
	}{
		{"empty", ""},
		{"not PEM", "hello"},
		{"small key", smallPEM},
		{"wrong block", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParsePrivate(tt.pem); err == nil {
				t.Fatal("ParsePrivate accepted it")
			}
			if _, err := ParsePublic(tt.pem); err == nil {
				t.Fatal("ParsePublic accepted it")
			}
		})
	}
}
