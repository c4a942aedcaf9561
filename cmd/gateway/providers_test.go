package main

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// boundConfig is the process configuration as Bind reads the environment.
func boundConfig(t *testing.T) platform.Config {
	t.Helper()
	cfg := platform.Defaults()
	cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
	cfg.PublicURL = "http://127.0.0.1:8080"
	return cfg
}

// TestProviderConfigListsEveryError: a start with bad provider
// configuration names every problem at once, not the first.
func TestProviderConfigListsEveryError(t *testing.T) {
	t.Setenv("GATEWAY_PROVIDER_NOSUCH", `{}`)
	t.Setenv("GATEWAY_PROVIDER_CRYPTOHOST", `{"base_url": "http://127.0.0.1:1"}`)
	t.Setenv("GATEWAY_PROVIDER_FIATPSP", `{"shop_id": "not a number"}`)
	t.Setenv("GATEWAY_PROVIDER_WALLET_B", `{"Nonsense": 1}`)
	cfg := boundConfig(t)
	if _, ok := cfg.Providers()["nosuch"]; ok {
		t.Fatal("NOSUCH is not a method, so no variable names it")
	}
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // wiring dials nothing
	defer rdb.Close()
	_, err = wireProviders(cfg, rdb, m, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Fatal("bad provider configuration accepted")
	}
	for _, want := range []string{"provider cryptohost", "provider fiatpsp", "provider wallet_b", "Nonsense"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
}

// TestProviderConfigIsSnakeCaseWithTextDurations: operators write a
// family's configuration with snake_case names and durations as text; Go
// field names and nanoseconds are refused (no compatibility shim: no
// deployed configuration exists).
func TestProviderConfigIsSnakeCaseWithTextDurations(t *testing.T) {
	const creds = `"base_url": "https://api.example.com", "api_key": "k", "webhook_secret": "s"`
	tests := []struct {
		name, json string
		ok         bool
	}{
		{"snake_case with a text time-out", `{` + creds + `, "caller": {"timeout": "3s", "retries": 2, "backoff": "50ms"}}`, true},
		{"Go field names", `{"BaseURL": "https://api.example.com", "APIKey": "k", "WebhookSecret": "s"}`, false},
		{"time-out in nanoseconds", `{` + creds + `, "caller": {"timeout": 3000000000}}`, false},
		{"unknown caller field", `{` + creds + `, "caller": {"timeout_ms": 3000}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GATEWAY_PROVIDER_CRYPTOHOST", tt.json)
			cfg := boundConfig(t)
			builds, err := decodeProviders(cfg.Providers(), cfg.ChannelsMax)
			if (err == nil) != tt.ok {
				t.Fatalf("decode = %v, want ok %v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			var got provider.CallerConfig
			if _, err := builds[schema.MethodCryptohost][0].build(func(cc provider.CallerConfig) *provider.Caller {
				got = cc
				return provider.NewCaller("t", cc, nil, nil, nil)
			}); err != nil {
				t.Fatal(err)
			}
			if got.Timeout != 3*time.Second || got.Retries != 2 || got.Backoff != 50*time.Millisecond {
				t.Fatalf("caller bounds %+v, want 3s, 2 retries, 50ms", got)
			}
		})
	}
}

// TestEveryFamilyIsRegisteredUnderItsMethod: the families the process lists
// are registered under their own methods.
func TestEveryFamilyIsRegisteredUnderItsMethod(t *testing.T) {
	fams := providerFamilies()
	if len(fams) != 8 {
		t.Fatalf("%d families, want 8: %v", len(fams), familyNames(fams))
	}
	for m, f := range fams {
		if f.Method != m || !m.Known() {
			t.Errorf("family %q registered as %q", f.Method, m)
		}
	}
}

// TestEveryFamilyHasItsSimulator: the simulators are listed apart from the
// families (web/sandbox), so a family without one would be a sandbox the
// process cannot mount; the list matches the families one for one.
func TestEveryFamilyHasItsSimulator(t *testing.T) {
	fams, sims := providerFamilies(), providerSimulators()
	for m := range fams {
		if sims[m] == nil {
			t.Errorf("family %s has no simulator", m)
		}
	}
	for m := range sims {
		if _, ok := fams[m]; !ok {
			t.Errorf("simulator %s has no family", m)
		}
	}
}
