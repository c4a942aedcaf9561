package cryptohost_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	cryptohost "github.com/paygate/gateway/provider/cryptohost"
	cryptohostsim "github.com/paygate/gateway/web/sandbox/cryptohost"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// gateway is a stand-in for the gateway over real HTTP: the simulator
// mounted at /sandbox/provider/cryptohost and a receiver at the
// notification path that verifies with the sandbox adapter.
type gateway struct {
	srv *httptest.Server
	sim *cryptohostsim.Simulator
	ad  *cryptohost.Adapter
	got providertest.Receiver // the notification endpoint
}

func newGateway(t *testing.T) *gateway {
	t.Helper()
	g := &gateway{}
	app := sandboxtest.App()
	g.srv = sandboxtest.NewServer(app)
	t.Cleanup(g.srv.Close)
	base := g.srv.URL + "/sandbox/provider/" + cryptohost.Family
	n := &provider.Notifier{Client: g.srv.Client(), Delays: []time.Duration{20 * time.Millisecond}}
	g.sim = cryptohostsim.NewSimulator(cryptohostsim.SandboxSimConfig(base).WithCost(simkit.FixedCost(providertest.StatementSchedule)), &provider.MemState{}, n, nil)
	g.sim.Register(app.Group("/sandbox/provider/" + cryptohost.Family))
	ad, err := cryptohost.New(cryptohost.SandboxConfig(base), providertest.Caller(t, cryptohost.Family, provider.CallerConfig{Timeout: 2 * time.Second}, g.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	g.ad = ad
	g.got.Adapter = ad
	app.Post("/sandbox/gatewaynotification/"+cryptohost.Family+"/*", sandboxtest.Handle(func(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
		return g.got.Receive(ctx, d.Header, d.Body, d.Path)
	}))
	return g
}
func testPayment(orderID string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: "cryptohost", Charge: provider.Money{Amount: 100_00, Currency: "USD"},
		Description: "Order 42", SuccessURL: "https://shop.example/ok", CancelURL: "https://shop.example/cancel",
	}
}

func TestEndToEnd(t *testing.T) {
	tests := []struct {
		name    string
		outcome string
		want    provider.Outcome
		paid    provider.Money
		back    string
		viaPage bool
	}{
		{"page pays", "pay", provider.OutcomePaid, provider.Money{Amount: 100_00, Currency: "USD"}, "https://shop.example/ok", true},
		{"page fails", "fail", provider.OutcomeFailed, provider.Money{}, "https://shop.example/cancel", true},
		{"settle pays", "pay", provider.OutcomePaid, provider.Money{Amount: 100_00, Currency: "USD"}, "", false},
		{"settle fails", "fail", provider.OutcomeFailed, provider.Money{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGateway(t)
			ctx := context.Background()
			in, err := g.ad.Initialise(ctx, testPayment("P-"+tt.outcome))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(in.ProviderURL, g.srv.URL+"/sandbox/provider/cryptohost/pay/") || in.Ref == "" {
				t.Fatalf("init %+v", in)
			}
			if tt.viaPage {
				browse(t, g, in.ProviderURL, tt.outcome, tt.back)
			} else if err := g.sim.Settle(ctx, in.Ref, tt.outcome == "pay"); err != nil {
				t.Fatal(err)
			}
			d := g.got.WaitFor(t, tt.want)
			if d.N.OrderID != "P-"+tt.outcome || d.N.Ref != in.Ref || d.N.Paid != tt.paid {
				t.Fatalf("notification %+v", d.N)
			}
			q, err := g.ad.Query(ctx, "P-"+tt.outcome, in.Ref)
			if err != nil || q.Outcome != tt.want || q.Paid != tt.paid {
				t.Fatalf("query %+v %v", q, err)
			}
		})
	}
}

// browse opens the hosted page and clicks outcome, as a tester would.
func browse(t *testing.T, g *gateway, pageURL, outcome, back string) {
	t.Helper()
	res := providertest.Press(t, providertest.NoRedirects(g.srv.Client()), pageURL, outcome, "100.00")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != back {
		t.Fatalf("after %s: HTTP %d to %q", outcome, res.StatusCode, res.Header.Get("Location"))
	}
}

func TestEndToEndSendsPendingFirst(t *testing.T) {
	g := newGateway(t)
	in, err := g.ad.Initialise(context.Background(), testPayment("P-order"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	g.got.WaitFor(t, provider.OutcomePaid)
	got := g.got.All()
	if len(got) != 2 || got[0].N.Outcome != provider.OutcomePending {
		t.Fatalf("deliveries %+v", got)
	}
	if err := g.sim.Settle(context.Background(), in.Ref, false); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("failing a paid charge: %v", err)
	}
}

func TestEndToEndRefusesForgeries(t *testing.T) {
	g := newGateway(t)
	in, err := g.ad.Initialise(context.Background(), testPayment("P-forge"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	real := g.got.WaitFor(t, provider.OutcomePaid)
	sig := real.Header.Get(cryptohost.DefaultSignatureHeader)
	tests := []struct {
		name string
		body []byte
		sig  string
		want int
	}{
		{"replay verifies the same", real.Body, sig, http.StatusOK},
		{"forged signature", real.Body, cryptohost.Sign("not-the-secret", real.Body), http.StatusUnauthorized},
		{"tampered amount", bytes.Replace(real.Body, []byte(`"100.00"`), []byte(`"1.00"`), 1), sig, http.StatusUnauthorized},
		{"tampered order", bytes.Replace(real.Body, []byte(`P-forge`), []byte(`P-other`), 1), sig, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, g.srv.URL+"/sandbox/gatewaynotification/cryptohost/webhook", bytes.NewReader(tt.body))
			req.Header.Set(cryptohost.DefaultSignatureHeader, tt.sig)
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
				t.Fatalf("replay verified as %+v, first as %+v", last.N, real.N)
			}
		})
	}
}

func TestInitialiseProviderTrouble(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cfg     provider.CallerConfig
		want    error
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) },
			provider.CallerConfig{Timeout: time.Second}, provider.ErrUnavailable},
		{"hangs", providertest.Hang, provider.CallerConfig{Timeout: 150 * time.Millisecond}, provider.ErrUnavailable},
		{"answer over the body bound", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(201)
			_, _ = w.Write(bytes.Repeat([]byte("x"), 4096))
		}, provider.CallerConfig{Timeout: time.Second, MaxBody: 1024}, provider.ErrUnavailable},
		{"answer that is not a charge", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(201)
			_, _ = w.Write([]byte(`{"data":{"code":""}}`))
		}, provider.CallerConfig{Timeout: time.Second}, provider.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ad, err := cryptohost.New(cryptohost.SandboxConfig(srv.URL), providertest.Caller(t, cryptohost.Family, tt.cfg, srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = ad.Initialise(context.Background(), testPayment("P-down"))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

func TestSimulatorRefusesAWrongAPIKey(t *testing.T) {
	g := newGateway(t)
	cfg := cryptohost.SandboxConfig(g.srv.URL + "/sandbox/provider/" + cryptohost.Family)
	cfg.APIKey = "wrong"
	ad, err := cryptohost.New(cfg, providertest.Caller(t, cryptohost.Family, provider.CallerConfig{Timeout: time.Second}, g.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ad.Initialise(context.Background(), testPayment("P-key")); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("initialise: %v", err)
	}
	if _, err := ad.Query(context.Background(), "P-key", "NOSUCH1"); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("query: %v", err)
	}
	if _, err := g.ad.Query(context.Background(), "P-key", "NOSUCH1"); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("query of an unknown charge: %v", err)
	}
}
