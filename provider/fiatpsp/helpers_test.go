package fiatpsp_test

import (
	"testing"
	"time"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
)

// newAdapter builds an adapter or fails the test.
func newAdapter(t *testing.T, cfg fiatpsp.Config) *fiatpsp.Adapter {
	t.Helper()
	a, err := fiatpsp.New(cfg, providertest.Caller(t, fiatpsp.Family, cfg.Caller, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// vectorAdapter is an adapter with the vectors' credentials and shop.
func vectorAdapter(t *testing.T, v vectors, apiBase string) *fiatpsp.Adapter {
	t.Helper()
	cfg := fiatpsp.Defaults()
	cfg.BaseURL, cfg.ShopID, cfg.APIKey, cfg.Secret2 = apiBase, 41200, v.APIKey, v.Secret2
	cfg.Caller.Timeout = 2 * time.Second
	return newAdapter(t, cfg)
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
