package exchange_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	exchange "github.com/paygate/gateway/usdt/exchange"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"
	exchangesim "github.com/paygate/gateway/web/sandbox/usdt/exchange"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

const (
	tronHash = "4f2a9c0b0d1e7e3f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f"
	ours     = "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"
)

var epoch = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

type account struct {
	sim *exchangesim.Sim
	srv *httptest.Server
}

func newAccount(t *testing.T) *account {
	t.Helper()
	a := &account{sim: exchangesim.NewSim(exchangesim.SimConfig{Now: func() time.Time { return epoch }, Hang: 2 * time.Second}, &provider.MemState{})}
	a.srv = httptest.NewServer(a.sim.Handler())
	t.Cleanup(a.srv.Close)
	return a
}

// client is a client of the account with cfg's changes to the sandbox
// credentials and the simulator's clock.
func (a *account) client(change func(*exchange.Config)) *exchange.Client {
	cfg := exchange.Config{BaseURL: a.srv.URL, APIKey: exchange.SandboxAPIKey, Secret: exchange.SandboxSecret, Timeout: 300 * time.Millisecond,
		Now: func() time.Time { return epoch }}
	if change != nil {
		change(&cfg)
	}
	return exchange.NewClient(cfg, a.srv.Client())
}

func TestDeposit(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	if err := a.sim.AddDeposit(ctx, exchangesim.DepositSpec{TxID: tronHash, Network: "TRX", Address: ours, Amount: "12.347061", Status: 1, At: epoch}); err != nil {
		t.Fatal(err)
	}
	pending := "0x" + tronHash
	if err := a.sim.AddDeposit(ctx, exchangesim.DepositSpec{TxID: pending, Network: "BSC", Address: "0xabc", Amount: "1", Status: 0}); err != nil {
		t.Fatal(err)
	}
	c := a.client(nil)
	got, err := c.Deposit(ctx, "TRX", tronHash)
	want := usdt.Deposit{TxID: tronHash, Coin: "USDT", Network: "TRX", Address: ours, Amount: "12.347061", Success: true, InsertTime: epoch}
	if err != nil || got != want {
		t.Errorf("Deposit = %+v, %v\nwant %+v", got, err, want)
	}
	if got, err := c.Deposit(ctx, "BSC", pending); err != nil || got.Success {
		t.Errorf("pending deposit = %+v, %v; want found, not Success", got, err)
	}
	missing := map[string][2]string{
		"unknown txId":  {"TRX", "00" + tronHash[2:]},
		"other network": {"BSC", tronHash},
	}
	for name, q := range missing {
		if _, err := c.Deposit(ctx, q[0], q[1]); !errors.Is(err, usdt.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
}

func TestRefusals(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	if err := a.sim.AddDeposit(ctx, exchangesim.DepositSpec{TxID: tronHash, Network: "TRX", Address: ours, Amount: "1", Status: 1}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		change func(*exchange.Config)
		status int
		code   int
	}{
		{"wrong secret", func(c *exchange.Config) { c.Secret = "not-the-secret" }, 400, -1022},
		{"wrong API key", func(c *exchange.Config) { c.APIKey = "not-the-key" }, 401, -2015},
		{"clock behind the window", func(c *exchange.Config) {
			c.Now = func() time.Time { return epoch.Add(-exchange.RecvWindow*time.Millisecond - time.Millisecond) }
		}, 400, -1021},
		{"clock ahead", func(c *exchange.Config) { c.Now = func() time.Time { return epoch.Add(time.Second) } }, 400, -1021},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.client(tc.change).Deposit(ctx, "TRX", tronHash)
			var apiErr *exchange.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tc.status || apiErr.Code != tc.code {
				t.Fatalf("Deposit = %v, want HTTP %d code %d", err, tc.status, tc.code)
			}
			if errors.Is(err, usdt.ErrNotFound) {
				t.Error("a refusal reads as not found")
			}
		})
	}
	edge := func(c *exchange.Config) {
		c.Now = func() time.Time { return epoch.Add(-exchange.RecvWindow * time.Millisecond) }
	}
	if _, err := a.client(edge).Deposit(ctx, "TRX", tronHash); err != nil {
		t.Errorf("a request at the window's edge: %v", err)
	}
}

func TestBackendDown(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	c := a.client(nil)
	for _, f := range []usdtsim.Failure{usdtsim.Down, usdtsim.Hang} {
		if err := a.sim.Fail(ctx, tronHash, f); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Deposit(ctx, "TRX", tronHash); err == nil || errors.Is(err, usdt.ErrNotFound) {
			t.Errorf("deposit %s: %v, want a backend error", f, err)
		}
		if err := a.sim.Fail(ctx, exchangesim.PayFailureID, f); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Payment(ctx, "P1"); err == nil || errors.Is(err, usdt.ErrNotFound) {
			t.Errorf("payment %s: %v, want a backend error", f, err)
		}
	}
}

func TestPayment(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	add := func(spec exchangesim.PaymentSpec) string {
		t.Helper()
		id, err := a.sim.AddPayment(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	paid := add(exchangesim.PaymentSpec{OrderID: "P100", Amount: "12.347061", At: epoch})
	add(exchangesim.PaymentSpec{OrderID: "P200", Amount: "5"})
	add(exchangesim.PaymentSpec{OrderID: "P200", Amount: "-5", Refund: true})
	c := a.client(nil)
	got, err := c.Payment(ctx, "P100")
	want := usdt.Payment{OrderID: "P100", Amount: "12.347061", Coin: "USDT", Success: true, TxID: paid, Time: epoch}
	if err != nil || got != want {
		t.Errorf("Payment = %+v, %v\nwant %+v", got, err, want)
	}
	if got, err := c.Payment(ctx, "P200"); err != nil || got.Success {
		t.Errorf("refunded payment = %+v, %v; want found, not Success", got, err)
	}
	if _, err := c.Payment(ctx, "P300"); !errors.Is(err, usdt.ErrNotFound) {
		t.Errorf("no payment: %v, want ErrNotFound", err)
	}
	bad := a.client(func(c *exchange.Config) { c.Secret = "x" })
	if _, err := bad.Payment(ctx, "P100"); err == nil || errors.Is(err, usdt.ErrNotFound) {
		t.Errorf("badly signed payment query: %v, want a refusal", err)
	}
}

func TestRegisterOnFiber(t *testing.T) {
	app := sandboxtest.App()
	sim := exchangesim.NewSim(exchangesim.SimConfig{}, &provider.MemState{})
	sim.Register(app.Group("/sandbox/usdt/exchange"))
	srv := sandboxtest.NewServer(app)
	defer srv.Close()
	ctx := context.Background()
	if err := sim.AddDeposit(ctx, exchangesim.DepositSpec{TxID: tronHash, Network: "TRX", Address: ours, Amount: "1", Status: 1}); err != nil {
		t.Fatal(err)
	}
	c := exchange.NewClient(withAccount(srv.URL+"/sandbox/usdt/exchange", exchange.SandboxAPIKey, exchange.SandboxSecret), srv.Client())
	if got, err := c.Deposit(ctx, "TRX", tronHash); err != nil || !got.Success {
		t.Fatalf("Deposit = %+v, %v", got, err)
	}
	bad := exchange.NewClient(withAccount(srv.URL+"/sandbox/usdt/exchange", exchange.SandboxAPIKey, "x"), srv.Client())
	var apiErr *exchange.APIError
	if _, err := bad.Deposit(ctx, "TRX", tronHash); !errors.As(err, &apiErr) || apiErr.Code != -1022 {
		t.Fatalf("badly signed through fiber: %v", err)
	}
}

func TestInvalidConfig(t *testing.T) {
	err := (exchange.Config{BaseURL: "exchange"}).Validate()
	if err == nil {
		t.Fatal("an empty configuration was accepted")
	}
	if _, err := exchange.NewClient(exchange.Config{}, nil).Deposit(context.Background(), "TRX", tronHash); err == nil {
		t.Error("an unconfigured client made a call")
	}
}

// withAccount is the default connection to base with the credentials.
func withAccount(base, key, secret string) exchange.Config {
	c := exchange.Defaults()
	c.BaseURL, c.APIKey, c.Secret = base, key, secret
	return c
}
