package fiatpsp

import (
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// newCaller is a caller with its own metrics registry.
func newCaller(t *testing.T, cfg provider.CallerConfig) *provider.Caller {
	t.Helper()
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return provider.NewCaller(Family, cfg, nil, m, slog.New(slog.DiscardHandler))
}

// newAdapter builds an adapter or fails the test.
func newAdapter(t *testing.T, cfg Config) *Adapter {
	t.Helper()
	a, err := New(cfg, newCaller(t, cfg.WithDefaults().Caller))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// vectorAdapter is an adapter with the vectors' credentials and shop.
func vectorAdapter(t *testing.T, v vectors, apiBase string) *Adapter {
	t.Helper()
	return newAdapter(t, Config{
		APIBase: apiBase, ShopID: 41200, APIKey: v.APIKey, Secret2: v.Secret2,
		Caller: provider.CallerConfig{Timeout: 2 * time.Second},
	})
}

// paymentFromVector is the Payment whose create call the vector request is.
func paymentFromVector(t *testing.T, req map[string]string) provider.Payment {
	t.Helper()
	amount, err := schema.ParseAmount(req["amount"])
	if err != nil {
		t.Fatal(err)
	}
	return provider.Payment{
		OrderID: req["paymentId"], Method: schema.MethodFiatPSP, SystemID: req["i"],
		Charge:        provider.Money{Amount: amount, Currency: req["currency"]},
		CustomerEmail: req["email"], ClientIP: req["ip"],
	}
}
