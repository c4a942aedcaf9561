package bdcard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	bdcard "github.com/paygate/gateway/provider/bdcard"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

// A provider that fails, hangs or floods at Initialise gives an error
// wrapping ErrUnavailable within the time-out; one that refuses our store,
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
			_, _ = w.Write([]byte(`{"status":"SUCCESS","failedreason":"` + strings.Repeat("x", 4096) + `"}`))
		}, provider.ErrUnavailable},
		{"answer not JSON", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }, provider.ErrUnavailable},
		{"no checkout URL", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"status":"SUCCESS","sessionkey":"k"}`))
		}, provider.ErrUnavailable},
		{"refuses the store", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"status":"FAILED","failedreason":"Store Credential Error"}`))
		}, provider.ErrRefused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			t.Cleanup(srv.Close)
			a := newAdapter(t, bdcard.SandboxConfig(srv.URL), provider.CallerConfig{Timeout: 200 * time.Millisecond, MaxBody: 1024})
			h := &harness{family: bdcard.FamilyCard, base: "http://127.0.0.1:1"}
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

// The simulator refuses a store it does not know, as the provider does.
func TestInitialiseWrongStore(t *testing.T) {
	h := newHarness(t, bdcard.FamilyCard)
	cfg := bdcard.SandboxConfig(h.base + "/sandbox/provider/" + bdcard.FamilyCard)
	cfg.StorePassword = "wrong"
	a := newAdapter(t, cfg, provider.CallerConfig{Timeout: time.Second})
	if _, err := a.Initialise(context.Background(), h.payment("P2026wrong")); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("err = %v, want ErrRefused", err)
	}
	bdpspA := bdcard.SandboxConfigFamily(bdcard.FamilyPSPA, h.base+"/sandbox/provider/"+bdcard.FamilyCard)
	b := newAdapter(t, bdpspA, provider.CallerConfig{Timeout: time.Second})
	if _, err := b.Initialise(context.Background(), h.payment("P2026other")); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("the other family's store: err = %v, want ErrRefused", err)
	}
}

// Initialise charges BDT only: the command side converts first.
func TestInitialiseNeedsBDT(t *testing.T) {
	h := newHarness(t, bdcard.FamilyCard)
	p := h.payment("P2026usd")
	p.Charge = provider.Money{Amount: 10000, Currency: "USD"}
	if _, err := h.adapter.Initialise(context.Background(), p); err == nil {
		t.Fatal("a USD charge was sent")
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		cfg   bdcard.Config
		wants []string
	}{
		{"sandbox", bdcard.SandboxConfigFamily(bdcard.FamilyPSPA, "http://127.0.0.1:8080/sandbox/provider/bdpsp_a"), nil},
		{"empty", bdcard.Config{}, []string{"base URL", "store id", "store password"}},
		{"bad family and paths", bdcard.Config{Family: "bdx", BaseURL: "ftp://x", SessionPath: "api", StoreID: "s", StorePassword: "p"},
			[]string{"family", "base URL", "session path"}},
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
