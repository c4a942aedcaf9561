package walletb_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	walletb "github.com/paygate/gateway/provider/walletb"

	"github.com/paygate/gateway/provider"
)

func vectorRequest(c vectorCase, prefix string) *provider.Request {
	h := http.Header{}
	for k, v := range c.Headers {
		h.Set(prefix+k, v)
	}
	return &provider.Request{Header: h, Body: []byte(c.Body), Path: "notify"}
}

// TestNotificationVectors runs every wallet_b case of the shared vectors:
// the signed message as given, the signature and the decryption accepted
// or refused, and Verify saying the same at the vectors' time.
func TestNotificationVectors(t *testing.T) {
	v := readVectors(t)
	a := newAdapter(t, vectorConfig(t, v, 0))
	for _, tc := range v.Families.WalletB.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			msg := walletb.SignedMessage(tc.Headers["timestamp"], tc.Headers["nonce"], []byte(tc.Body))
			if tc.SignedMessage != "" && string(msg) != tc.SignedMessage {
				t.Errorf("signed message\n got %q\nwant %q", msg, tc.SignedMessage)
			}
			n, err := a.Verify(t.Context(), vectorRequest(tc, ""))
			if !tc.Valid {
				if !errors.Is(err, provider.ErrSignature) {
					t.Fatalf("Verify = %v, want ErrSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			checkPaid(t, n, "P20261123101500456ef12ab34cd56ef78ab90", 12345, "CNY")
			if n.Ref != "4200002026112300000001" {
				t.Errorf("Ref = %q", n.Ref)
			}
			if _, ok := n.Fields["signature"]; ok {
				t.Error("Fields keep the signature")
			}
		})
	}
}

// TestVectorPlaintext: the valid cases' resources decrypt to the vectors'
// plaintext, byte for byte.
func TestVectorPlaintext(t *testing.T) {
	v := readVectors(t)
	for _, tc := range v.Families.WalletB.Cases {
		if !tc.Valid {
			continue
		}
		t.Run(tc.Name, func(t *testing.T) {
			var ev struct {
				Resource walletb.Resource `json:"resource"`
			}
			if err := jsonUnmarshal(tc.Body, &ev); err != nil {
				t.Fatal(err)
			}
			plain, err := ev.Resource.Decrypt([]byte(v.Families.WalletB.APIv3Key))
			if err != nil || string(plain) != tc.Plaintext {
				t.Fatalf("decrypt = %q, %v", plain, err)
			}
		})
	}
}

// TestReplayWindowAndHeaders: the valid vector refused outside five
// minutes of our clock, for another key serial, without a header; accepted
// with the configured header prefix.
func TestReplayWindowAndHeaders(t *testing.T) {
	v := readVectors(t)
	valid := v.Families.WalletB.Cases[0]
	tests := []struct {
		name   string
		offset time.Duration
		change func(*walletb.Config, *provider.Request)
		ok     bool
	}{
		{"four minutes later", 4 * time.Minute, nil, true},
		{"six minutes later", 6 * time.Minute, nil, false},
		{"six minutes earlier", -6 * time.Minute, nil, false},
		{"other serial configured", 0, func(c *walletb.Config, _ *provider.Request) { c.PlatformSerial = "00FF" }, false},
		{"no nonce header", 0, func(_ *walletb.Config, r *provider.Request) { r.Header.Del("Nonce") }, false},
		{"header prefix", 0, func(c *walletb.Config, r *provider.Request) {
			c.HeaderPrefix = "X-Provider-"
			*r = *vectorRequest(valid, "X-Provider-")
		}, true},
		{"header prefix expected, plain headers sent", 0, func(c *walletb.Config, _ *provider.Request) { c.HeaderPrefix = "X-Provider-" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, req := vectorConfig(t, v, tt.offset), vectorRequest(valid, "")
			if tt.change != nil {
				tt.change(&cfg, req)
			}
			_, err := newAdapter(t, cfg).Verify(t.Context(), req)
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, provider.ErrSignature)) {
				t.Fatalf("Verify = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestSandboxKeysAreNotTheVectorKeys: the vectors' keys are for tests only.
func TestSandboxKeysAreNotTheVectorKeys(t *testing.T) {
	v := readVectors(t)
	for name, k := range v.Keys {
		for _, pem := range []string{walletb.SandboxMerchantPublicPEM, walletb.SandboxPlatformPublicPEM} {
			if k.PublicPEM == pem {
				t.Errorf("a sandbox key is the vectors' %s key", name)
			}
		}
	}
	if walletb.SandboxAPIv3Key == v.Families.WalletB.APIv3Key {
		t.Error("the sandbox API v3 key is the vectors'")
	}
}

func TestAuthorizationRoundTrip(t *testing.T) {
	a := newAdapter(t, walletb.SandboxConfig("http://sim.example"))
	now := time.Unix(1795400102, 0)
	h, err := walletb.Authorization(walletb.DefaultAuthScheme, "1900000109", "SER", a.Key(), "GET", "/v3/x?mchid=1", now, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := walletb.ParseAuthorization(walletb.DefaultAuthScheme, h)
	if err != nil || p["mchid"] != "1900000109" || p["serial_no"] != "SER" || p["timestamp"] != "1795400102" {
		t.Fatalf("parse = %v, %v", p, err)
	}
	if _, err := walletb.ParseAuthorization("OTHER", h); err == nil {
		t.Fatal("another scheme parsed")
	}
}
