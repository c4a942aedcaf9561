package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/provider"
)

// TestProviderConfigListsEveryError: a start with bad provider
// configuration names every problem at once, not the first.
func TestProviderConfigListsEveryError(t *testing.T) {
	t.Setenv("GATEWAY_PROVIDER_NOSUCH", `{}`)
	t.Setenv("GATEWAY_PROVIDER_CRYPTOHOST", `{"BaseURL": "http://127.0.0.1:1"}`)
	t.Setenv("GATEWAY_PROVIDER_FIATPSP", `{"ShopID": "not a number"}`)
	t.Setenv("GATEWAY_PROVIDER_WALLET_B", `{"Nonsense": 1}`)
	cfg, err := loadProviderConfig("")
	if err != nil {
		t.Fatalf("NOSUCH is not a method, so no variable names it: %v", err)
	}
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // wiring dials nothing
	defer rdb.Close()
	_, err = wireProviders(cfg, "http://127.0.0.1:8080", time.Second, rdb, m, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Fatal("bad provider configuration accepted")
	}
	for _, want := range []string{"provider cryptohost", "provider fiatpsp", "provider wallet_b", "Nonsense"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
}
