package cryptopsp_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	cryptopsp "github.com/paygate/gateway/provider/cryptopsp"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

func TestEndToEndRefusesForgeries(t *testing.T) {
	g := newGateway(t)
	in, err := g.ad.Initialise(context.Background(), g.payment("P-forge", "btc", 100_00))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	real := g.got.WaitFor(t, provider.OutcomePaid)
	sig := real.Header.Get(cryptopsp.DefaultSignatureHeader)
	compact, err := cryptopsp.Canonical(real.Body)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body []byte
		sig  string
		want int
	}{
		{"replay verifies the same", real.Body, sig, http.StatusOK},
		{"the same IPN re-serialised verifies the same", compact, sig, http.StatusOK},
		{"forged signature", real.Body, cryptopsp.Sign("not-the-secret", compact), http.StatusUnauthorized},
		{"tampered amount", bytes.Replace(real.Body, []byte(`"price_amount": 100`), []byte(`"price_amount": 1`), 1), sig, http.StatusUnauthorized},
		{"tampered status", bytes.Replace(real.Body, []byte(`"finished"`), []byte(`"refunded"`), 1), sig, http.StatusUnauthorized},
		{"no signature", real.Body, "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, g.srv.URL+"/api/gatewaynotification/cryptopsp/ipn", bytes.NewReader(tt.body))
			req.Header.Set(cryptopsp.DefaultSignatureHeader, tt.sig)
			res, err := g.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Fatalf("HTTP %d, want %d", res.StatusCode, tt.want)
			}
			last := g.got.Last()
			if tt.want == http.StatusOK && !reflect.DeepEqual(last.N, real.N) {
				t.Fatalf("verified as %+v, first as %+v", last.N, real.N)
			}
		})
	}
}

func TestProviderTrouble(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cfg     provider.CallerConfig
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, provider.CallerConfig{Timeout: time.Second}},
		{"hangs", providertest.Hang, provider.CallerConfig{Timeout: 150 * time.Millisecond}},
		{"answer over the body bound", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write(bytes.Repeat([]byte("x"), 4096))
		}, provider.CallerConfig{Timeout: time.Second, MaxBody: 1024}},
		{"answer that is not an invoice", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"id":"","invoice_url":"nowhere"}`))
		}, provider.CallerConfig{Timeout: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ad, err := cryptopsp.New(cryptopsp.SandboxConfig(srv.URL), providertest.Caller(t, cryptopsp.Family, tt.cfg, srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			g := &gateway{srv: srv}
			start := time.Now()
			if _, err := ad.Initialise(context.Background(), g.payment("P-down", "btc", 100_00)); !errors.Is(err, provider.ErrUnavailable) {
				t.Fatalf("initialise: %v", err)
			}
			if _, err := ad.MinAmount(context.Background(), "USD", "btc"); !errors.Is(err, provider.ErrUnavailable) {
				t.Fatalf("min amount: %v", err)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

func TestSimulatorRefusesAWrongAPIKey(t *testing.T) {
	g := newGateway(t)
	cfg := cryptopsp.SandboxConfig(g.srv.URL + "/sandbox/provider/" + cryptopsp.Family)
	cfg.APIKey = "wrong"
	ad, err := cryptopsp.New(cfg, providertest.Caller(t, cryptopsp.Family, provider.CallerConfig{Timeout: time.Second}, g.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := ad.Initialise(ctx, g.payment("P-key", "btc", 100_00)); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("initialise: %v", err)
	}
	if _, err := ad.Currencies(ctx); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("currencies: %v", err)
	}
	if _, err := ad.Query(ctx, "P-key", "1234567890"); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("query: %v", err)
	}
}
