package walletb_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	walletb "github.com/paygate/gateway/provider/walletb"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
)

// TestPlatformListChecked: a listed certificate is trusted only when it
// opens with our API v3 key and its serial is the one it is listed under;
// otherwise a message naming that serial is refused.
func TestPlatformListChecked(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const serial = "7B00000000000000000000000000000000000001"
	certPEM := func(t *testing.T, hexSerial string) []byte {
		t.Helper()
		n, _ := new(big.Int).SetString(hexSerial, 16)
		tmpl := &x509.Certificate{SerialNumber: n, Subject: pkix.Name{CommonName: "platform"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	tests := []struct {
		name     string
		certOf   string // the certificate's own serial
		sealWith string // the key the list is sealed with
		ok       bool
	}{
		{"listed under its serial", serial, walletb.SandboxAPIv3Key, true},
		{"listed under another serial", "7B00000000000000000000000000000000000002", walletb.SandboxAPIv3Key, false},
		{"sealed with another key", serial, "another-apiv3-key-for-tests-0001", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(certificatesHandler(t, serial, certPEM(t, tt.certOf), tt.sealWith))
			defer srv.Close()
			a := newAdapter(t, walletb.SandboxConfig(srv.URL))
			_, err := a.Verify(t.Context(), signedEvent(t, key, serial))
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, provider.ErrSignature)) {
				t.Fatalf("Verify = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// certificatesHandler answers the certificates call with one certificate
// listed under listed, signed with the sandbox platform key.
func certificatesHandler(t *testing.T, listed string, certPEM []byte, apiv3 string) http.HandlerFunc {
	t.Helper()
	r, err := walletb.Seal([]byte(apiv3), certPEM, "certificate")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(walletb.CertificatesAnswer{Data: []walletb.PlatformCert{{SerialNo: listed,
		Encrypted: walletb.EncryptedPEM{Algorithm: r.Algorithm, Nonce: r.Nonce, AssociatedData: r.AssociatedData, Ciphertext: r.Ciphertext}}}})
	platformKey, err := rsakey.ParsePrivate(walletb.SandboxPlatformPrivatePEM)
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != walletb.PathCertificates {
			http.NotFound(w, req)
			return
		}
		h, err := walletb.SignMessage(platformKey, walletb.SandboxPlatformSerial, time.Now(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("", w.Header().Set)
		_, _ = w.Write(body)
	}
}

// signedEvent is a paid notification signed with key under serial.
func signedEvent(t *testing.T, key *rsa.PrivateKey, serial string) *provider.Request {
	t.Helper()
	tx := `{"mchid":"` + walletb.SandboxMerchantID + `","appid":"` + walletb.SandboxAppID + `","out_trade_no":"P-list",` +
		`"transaction_id":"4200000000000000000001","trade_type":"NATIVE","trade_state":"SUCCESS","amount":{"total":100,"currency":"CNY"}}`
	res, err := walletb.Seal([]byte(walletb.SandboxAPIv3Key), []byte(tx), "transaction")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(walletb.Event{ID: "EV-1", EventType: walletb.EventSuccess, ResourceType: "encrypt-resource", Resource: res})
	h, err := walletb.SignMessage(key, serial, time.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{}
	h.Set("", header.Set)
	return &provider.Request{Header: header, Body: body, Path: "notify"}
}
