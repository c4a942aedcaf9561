package bdpspb_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	bdpspb "github.com/paygate/gateway/provider/bdpspb"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

// A provider that fails, hangs or floods at Initialise gives an error
// wrapping ErrUnavailable within the time-out; one that refuses us,
// ErrRefused.
func TestInitialiseFailures(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    error
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, provider.ErrUnavailable},
		{"hangs", providertest.Hang, provider.ErrUnavailable},
		{"answer over MaxBody", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"result":"true","message":"` + strings.Repeat("x", 4096) + `"}`))
		}, provider.ErrUnavailable},
		{"answer not JSON", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }, provider.ErrUnavailable},
		{"no payment URL", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"result":"true"}`)) }, provider.ErrUnavailable},
		{"refuses", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"result":"false","message":"Invalid Store ID or Signature Key"}`))
		}, provider.ErrRefused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			t.Cleanup(srv.Close)
			a := newAdapter(t, bdpspb.SandboxConfig(srv.URL), provider.CallerConfig{Timeout: 200 * time.Millisecond, MaxBody: 1024})
			h := &harness{base: "http://127.0.0.1:1"}
			start := time.Now()
			_, err := a.Initialise(context.Background(), h.payment("P2026init"))
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

// The simulator refuses a wrong key, as the provider does, and the key is
// not in the error.
func TestInitialiseWrongKey(t *testing.T) {
	h := newHarness(t)
	cfg := bdpspb.SandboxConfig(h.base + "/sandbox/provider/" + bdpspb.Family)
	cfg.SignatureKey = "wrong-key"
	a := newAdapter(t, cfg, provider.CallerConfig{Timeout: time.Second})
	_, err := a.Initialise(context.Background(), h.payment("P2026wrong"))
	if !errors.Is(err, provider.ErrRefused) || strings.Contains(err.Error(), "wrong-key") {
		t.Fatalf("err = %v, want ErrRefused without the key", err)
	}
}

func TestInitialiseNeedsBDT(t *testing.T) {
	h := newHarness(t)
	p := h.payment("P2026usd")
	p.Charge = provider.Money{Amount: 10000, Currency: "USD"}
	if _, err := h.adapter.Initialise(context.Background(), p); err == nil {
		t.Fatal("a USD charge was sent")
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		cfg   bdpspb.Config
		wants []string
	}{
		{"sandbox", bdpspb.SandboxConfig("http://127.0.0.1:8080/sandbox/provider/bdpsp_b"), nil},
		{"empty", bdpspb.Config{}, []string{"base URL", "store id", "signature key"}},
		{"bad paths", bdpspb.Config{BaseURL: "http://x", CreatePath: "a", SearchPath: "b", StoreID: "s", SignatureKey: "k"},
			[]string{"create path", "search path"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			if c.wants == nil {
				if err != nil {
					t.Fatalf("valid config refused: %v", err)
				}
				return
			}
			for _, w := range c.wants {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want it to mention %q", err, w)
				}
			}
		})
	}
}
