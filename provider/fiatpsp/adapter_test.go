package fiatpsp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"
	fiatpspsim "github.com/paygate/gateway/web/sandbox/fiatpsp"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// TestInitialiseDeferred: without a chosen system the payer chooses first,
// and nothing is asked of the provider.
func TestInitialiseDeferred(t *testing.T) {
	a := newAdapter(t, fiatpsp.SandboxConfig("http://127.0.0.1:1"))
	in, err := a.Initialise(context.Background(), provider.Payment{OrderID: "P1", Charge: paidRUB})
	if err != nil || in != (provider.Init{NextAction: schema.NextFiatpspSelect}) {
		t.Fatalf("init = %+v, %v", in, err)
	}
}

// TestSystems lists the simulator's enabled systems, every currency of the
// method among them.
func TestSystems(t *testing.T) {
	h := startHarness(t, nil)
	list, err := h.adapter.Systems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	currencies := map[string]bool{}
	for _, s := range list {
		if s.ID == 99 {
			t.Error("a disabled system is offered")
		}
		currencies[s.Currency] = true
	}
	for _, c := range []string{"RUB", "USD", "EUR", "UAH", "KZT"} {
		if !currencies[c] {
			t.Errorf("no system in %s", c)
		}
	}
}

// TestInitialiseRefused: what the provider refuses, and what we refuse
// before asking it, wraps ErrRefused.
func TestInitialiseRefused(t *testing.T) {
	h := startHarness(t, nil)
	wrongKey := startHarness(t, func(_ *fiatpspsim.SimConfig, c *fiatpsp.Config) { c.APIKey = "wrong" })
	edit := func(change func(*provider.Payment)) provider.Payment {
		p := h.payment("P-refused", "36")
		change(&p)
		return p
	}
	cases := []struct {
		name string
		a    *fiatpsp.Adapter
		p    provider.Payment
	}{
		{"currency not the system's", h.adapter, edit(func(p *provider.Payment) { p.Charge.Currency = "USD" })},
		{"disabled system", h.adapter, edit(func(p *provider.Payment) { p.SystemID = "99" })},
		{"system id not a number", h.adapter, edit(func(p *provider.Payment) { p.SystemID = "card" })},
		{"no payer IP", h.adapter, edit(func(p *provider.Payment) { p.ClientIP = "" })},
		{"wrong API key", wrongKey.adapter, wrongKey.payment("P-refused", "36")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := c.a.Initialise(context.Background(), c.p); !errors.Is(err, provider.ErrRefused) {
				t.Fatalf("err = %v, want ErrRefused", err)
			}
		})
	}
	if _, err := wrongKey.adapter.Systems(context.Background()); !errors.Is(err, provider.ErrRefused) {
		t.Errorf("systems with a wrong key: err = %v, want ErrRefused", err)
	}
}

// TestInitialiseFallbackEmail sends the configured address for a payer
// without one, and repeats the same order for a repeated create.
func TestInitialiseFallbackEmail(t *testing.T) {
	h := startHarness(t, nil)
	p := h.payment("P-noemail", "36")
	p.CustomerEmail = ""
	first := h.initialise(t, p)
	if again := h.initialise(t, p); again != first {
		t.Errorf("repeated create = %+v, want %+v", again, first)
	}
}

// TestQueryNotFound: an order the provider does not know.
func TestQueryNotFound(t *testing.T) {
	h := startHarness(t, nil)
	if _, err := h.adapter.Query(context.Background(), "P-unknown", ""); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

// TestProviderUnavailable: a provider that fails, hangs or answers too much
// is unavailable, within the time-out.
func TestProviderUnavailable(t *testing.T) {
	stop := make(chan struct{}) // lets the hanging handler go before its server closes
	var servers []*httptest.Server
	defer func() {
		close(stop)
		for _, s := range servers {
			s.Close()
		}
	}()
	cases := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }},
		{"hangs", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		}},
		{"answer over MaxBody", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"type":"success","currencies":[` + strings.Repeat(" ", 4096) + `]}`))
		}},
		{"answer not JSON", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			servers = append(servers, srv)
			cfg := fiatpsp.SandboxConfig(srv.URL)
			cfg.Caller = provider.CallerConfig{Timeout: 200 * time.Millisecond, MaxBody: 1024, Retries: 1, Backoff: 10 * time.Millisecond}
			a := newAdapter(t, cfg)
			start := time.Now()
			_, errInit := a.Initialise(context.Background(), provider.Payment{
				OrderID: "P-down", SystemID: "36", Charge: paidRUB, CustomerEmail: "p@example.com", ClientIP: "203.0.113.7",
			})
			_, errSys := a.Systems(context.Background())
			if !errors.Is(errInit, provider.ErrUnavailable) || !errors.Is(errSys, provider.ErrUnavailable) {
				t.Fatalf("errors %v / %v, want ErrUnavailable", errInit, errSys)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestConfigValidate lists every problem at once.
func TestConfigValidate(t *testing.T) {
	if err := fiatpsp.SandboxConfig("http://127.0.0.1:8080/sandbox/provider/fiatpsp").Validate(); err != nil {
		t.Fatalf("sandbox config: %v", err)
	}
	err := fiatpsp.Config{BaseURL: "ftp://x", AllowedIPs: []netip.Prefix{{}}, FallbackEmail: "nobody"}.Validate()
	for _, want := range []string{"base URL", "ShopID", "APIKey", "Secret2", "AllowedIPs[0]", "FallbackEmail"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
}
