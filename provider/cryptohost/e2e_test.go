package cryptohost

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

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

// delivery is one webhook as our receiver got it and what Verify said.
type delivery struct {
	header http.Header
	body   []byte
	n      provider.Notification
	err    error
}

// gateway is a stand-in for the gateway over real HTTP: the simulator
// mounted at /sandbox/provider/cryptohost and a receiver at the
// notification path that verifies with the sandbox adapter.
type gateway struct {
	srv *httptest.Server
	sim *Simulator
	ad  *Adapter

	got providertest.Log[delivery]
}

func newGateway(t *testing.T) *gateway {
	t.Helper()
	g := &gateway{}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	g.srv = httptest.NewServer(adaptor.FiberApp(app))
	t.Cleanup(g.srv.Close)
	base := g.srv.URL + "/sandbox/provider/" + Family
	n := &provider.Notifier{Client: g.srv.Client(), Delays: []time.Duration{20 * time.Millisecond}}
	g.sim = NewSimulator(SandboxSimConfig(base), &provider.MemState{}, n, nil)
	g.sim.Register(app.Group("/sandbox/provider/" + Family))
	ad, err := New(SandboxConfig(base), providertest.Caller(t, Family, provider.CallerConfig{Timeout: 2 * time.Second}, g.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	g.ad = ad
	app.Post("/sandbox/gatewaynotification/"+Family+"/+", g.receive)
	return g
}

// receive is the gateway's notification endpoint, reduced to Verify and
// Reply.
func (g *gateway) receive(c *fiber.Ctx) error {
	d := delivery{header: providertest.Header(c), body: append([]byte(nil), c.Body()...)}
	d.n, d.err = g.ad.Verify(c.UserContext(), &provider.Request{Header: d.header, Body: d.body, Path: c.Params("+")})
	g.got.Add(d)
	r := g.ad.Reply(d.n, d.err)
	return c.Status(r.Status).SendString(r.Body)
}

// waitFor returns the first delivery that verified with outcome o.
func (g *gateway) waitFor(t *testing.T, o provider.Outcome) delivery {
	t.Helper()
	return g.got.WaitFor(t, "webhook", func(d delivery) bool { return d.err == nil && d.n.Outcome == o })
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
			d := g.waitFor(t, tt.want)
			if d.n.OrderID != "P-"+tt.outcome || d.n.Ref != in.Ref || d.n.Paid != tt.paid {
				t.Fatalf("notification %+v", d.n)
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
	g.waitFor(t, provider.OutcomePaid)
	got := g.got.All()
	if len(got) != 2 || got[0].n.Outcome != provider.OutcomePending {
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
	real := g.waitFor(t, provider.OutcomePaid)
	sig := real.header.Get(DefaultSignatureHeader)
	tests := []struct {
		name string
		body []byte
		sig  string
		want int
	}{
		{"replay verifies the same", real.body, sig, http.StatusOK},
		{"forged signature", real.body, Sign("not-the-secret", real.body), http.StatusUnauthorized},
		{"tampered amount", bytes.Replace(real.body, []byte(`"100.00"`), []byte(`"1.00"`), 1), sig, http.StatusUnauthorized},
		{"tampered order", bytes.Replace(real.body, []byte(`P-forge`), []byte(`P-other`), 1), sig, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, g.srv.URL+"/sandbox/gatewaynotification/cryptohost/webhook", bytes.NewReader(tt.body))
			req.Header.Set(DefaultSignatureHeader, tt.sig)
			res, err := g.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Fatalf("HTTP %d, want %d", res.StatusCode, tt.want)
			}
			last := g.got.Last()
			if tt.want == http.StatusOK && !reflect.DeepEqual(last.n, real.n) {
				t.Fatalf("replay verified as %+v, first as %+v", last.n, real.n)
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
			ad, err := New(SandboxConfig(srv.URL), providertest.Caller(t, Family, tt.cfg, srv.Client()))
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
	cfg := SandboxConfig(g.srv.URL + "/sandbox/provider/" + Family)
	cfg.APIKey = "wrong"
	ad, err := New(cfg, providertest.Caller(t, Family, provider.CallerConfig{Timeout: time.Second}, g.srv.Client()))
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
