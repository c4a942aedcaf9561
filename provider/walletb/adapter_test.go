package walletb_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	walletb "github.com/paygate/gateway/provider/walletb"

	"github.com/paygate/gateway/provider"
)

// TestProviderTrouble: a provider that fails, hangs or answers too much is
// ErrUnavailable, within the time-out.
func TestProviderTrouble(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc // nil: hang
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }},
		{"hangs", nil},
		{"answer over MaxBody", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(make([]byte, 4096)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			handler := tt.handler
			if handler == nil {
				handler = func(http.ResponseWriter, *http.Request) { <-release }
			}
			srv := httptest.NewServer(handler)
			defer srv.Close()
			defer close(release)
			cfg := walletb.SandboxConfig(srv.URL)
			cfg.Caller = provider.CallerConfig{Timeout: 200 * time.Millisecond, MaxBody: 1024}
			p := provider.Payment{OrderID: "P-trouble", Charge: provider.Money{Amount: 100, Currency: "CNY"}, NotifyURL: "http://x/n"}
			start := time.Now()
			if _, err := newAdapter(t, cfg).Initialise(t.Context(), p); !errors.Is(err, provider.ErrUnavailable) {
				t.Fatalf("Initialise = %v, want ErrUnavailable", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestConfigValidateListsEveryProblem(t *testing.T) {
	err := walletb.Config{BaseURL: "ftp://x", APIv3Key: "short"}.Validate()
	if err == nil {
		t.Fatal("empty config validated")
	}
	for _, want := range []string{"base URL", "merchant id", "app id", "merchant serial", "platform serial",
		"API v3 key", "merchant private key", "platform public key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not in %v", want, err)
		}
	}
	if err := walletb.SandboxConfig("http://sim.example").Validate(); err != nil {
		t.Fatalf("sandbox config: %v", err)
	}
}

func TestReply(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"accepted", nil, 204, ""},
		{"forged", provider.ErrSignature, 401, "SIGN_ERROR"},
		{"malformed", provider.ErrMalformed, 400, "PARAM_ERROR"},
		{"our trouble", errors.New("store down"), 500, "FAIL"},
	}
	a := newAdapter(t, walletb.SandboxConfig("http://sim.example"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.Reply(provider.Notification{}, tt.err)
			var body struct{ Code, Message string }
			if tt.code != "" {
				if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
					t.Fatal(err)
				}
			}
			if r.Status != tt.status || body.Code != tt.code || (tt.code == "" && r.Body != "") {
				t.Fatalf("Reply = %+v", r)
			}
		})
	}
}
