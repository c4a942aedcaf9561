package cryptohost

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/provider"
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

	mu   sync.Mutex
	got  []delivery
	wake chan struct{}
}

func newCaller(t *testing.T, cfg provider.CallerConfig, client *http.Client) *provider.Caller {
	t.Helper()
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return provider.NewCaller(Family, cfg, client, m, nil)
}

func newGateway(t *testing.T) *gateway {
	t.Helper()
	g := &gateway{wake: make(chan struct{}, 64)}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	g.srv = httptest.NewServer(adaptor.FiberApp(app))
	t.Cleanup(g.srv.Close)
	base := g.srv.URL + "/sandbox/provider/" + Family
	n := &provider.Notifier{Client: g.srv.Client(), Delays: []time.Duration{20 * time.Millisecond}}
	g.sim = NewSimulator(SandboxSimConfig(base), &provider.MemState{}, n, nil)
	g.sim.Register(app.Group("/sandbox/provider/" + Family))
	ad, err := New(SandboxConfig(base), newCaller(t, provider.CallerConfig{Timeout: 2 * time.Second}, g.srv.Client()))
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
	h := http.Header{}
	for k, vs := range c.GetReqHeaders() { // fiber reuses these strings: copy them
		for _, v := range vs {
			h.Add(strings.Clone(k), strings.Clone(v))
		}
	}
	d := delivery{header: h, body: append([]byte(nil), c.Body()...)}
	d.n, d.err = g.ad.Verify(c.UserContext(), &provider.Request{Header: h, Body: d.body, Path: c.Params("+")})
	g.mu.Lock()
	g.got = append(g.got, d)
	g.mu.Unlock()
	g.wake <- struct{}{}
	r := g.ad.Reply(d.n, d.err)
	return c.Status(r.Status).SendString(r.Body)
}

// waitFor returns the first delivery that verified with outcome o.
func (g *gateway) waitFor(t *testing.T, o provider.Outcome) delivery {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		g.mu.Lock()
		for _, d := range g.got {
			if d.err == nil && d.n.Outcome == o {
				g.mu.Unlock()
				return d
			}
		}
		g.mu.Unlock()
		select {
		case <-g.wake:
		case <-deadline:
			t.Fatalf("no %v webhook arrived", o)
		}
	}
}

func testPayment(orderID string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: "cryptohost", Charge: provider.Money{Amount: 100_00, Currency: "USD"},
		Description: "Order 42", SuccessURL: "https://shop.example/ok", CancelURL: "https://shop.example/cancel",
	}
}

// noRedirects is a client that shows us the simulator's redirects.
func noRedirects(c *http.Client) *http.Client {
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
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
	c := noRedirects(g.srv.Client())
	res, err := c.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Contains(page, []byte("100.00")) {
		t.Fatalf("page: HTTP %d %s", res.StatusCode, page)
	}
	res, err = c.PostForm(pageURL, url.Values{"outcome": {outcome}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
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
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.got) != 2 || g.got[0].n.Outcome != provider.OutcomePending {
		t.Fatalf("deliveries %+v", g.got)
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
			g.mu.Lock()
			last := g.got[len(g.got)-1]
			g.mu.Unlock()
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
		{"hangs", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // so the server sees the client go
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, provider.CallerConfig{Timeout: 150 * time.Millisecond}, provider.ErrUnavailable},
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
			ad, err := New(SandboxConfig(srv.URL), newCaller(t, tt.cfg, srv.Client()))
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
	ad, err := New(cfg, newCaller(t, provider.CallerConfig{Timeout: time.Second}, g.srv.Client()))
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
