package bdcard

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// result is what the test's notification receiver made of one IPN.
type result struct {
	n    provider.Notification
	err  error
	body string
}

// harness is a real HTTP server running the simulator under
// /sandbox/provider/<family> and a receiver at
// /api/gatewaynotification/<family>/* that verifies with the adapter and
// answers with its Reply, as the gateway does.
type harness struct {
	family  string
	base    string
	sim     *Simulator
	adapter *Adapter
	got     chan result
}

func newHarness(t *testing.T, family string) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{family: family, base: "http://" + ln.Addr().String(), got: make(chan result, 16)}
	simBase := h.base + "/sandbox/provider/" + family
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	notifier := &provider.Notifier{Client: &http.Client{Timeout: 5 * time.Second}, Delays: []time.Duration{}}
	h.sim = NewSimulator(SandboxSimConfigFamily(family, simBase), &provider.MemState{}, notifier, nil)
	h.sim.Register(app.Group("/sandbox/provider/" + family))
	app.Post("/api/gatewaynotification/"+family+"/*", h.receive)
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	h.adapter = newAdapter(t, SandboxConfigFamily(family, simBase), provider.CallerConfig{Timeout: 2 * time.Second})
	return h
}

func newAdapter(t *testing.T, cfg Config, cc provider.CallerConfig) *Adapter {
	t.Helper()
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, provider.NewCaller(cfg.Family, cc, nil, m, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (h *harness) receive(c *fiber.Ctx) error {
	body := string(c.Body())
	form, _ := url.ParseQuery(body)
	n, err := h.adapter.Verify(c.UserContext(), &provider.Request{Body: []byte(body), Form: form, Path: c.Params("*")})
	h.got <- result{n: n, err: err, body: body}
	rep := h.adapter.Reply(n, err)
	c.Set("Content-Type", rep.ContentType)
	return c.Status(rep.Status).SendString(rep.Body)
}

// next waits for the receiver's next verdict.
func (h *harness) next(t *testing.T) result {
	t.Helper()
	select {
	case r := <-h.got:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no notification arrived")
		return result{}
	}
}

// payment is a USD 100.00 order charged 12150.00 BDT.
func (h *harness) payment(orderID string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: schema.Method(h.family),
		Charge:      provider.Money{Amount: 1215000, Currency: "BDT"},
		Original:    provider.Money{Amount: 10000, Currency: "USD"},
		Description: "Sandbox order", CustomerName: "Test Payer", CustomerEmail: "payer@example.com",
		NotifyURL:  h.base + "/api/gatewaynotification/" + h.family + "/ipn",
		SuccessURL: h.base + "/payment/" + orderID + "/success", FailURL: h.base + "/payment/" + orderID + "/fail",
		CancelURL: h.base + "/payment/" + orderID + "/cancel",
	}
}

func (h *harness) initialise(t *testing.T, orderID string) provider.Init {
	t.Helper()
	in, err := h.adapter.Initialise(context.Background(), h.payment(orderID))
	if err != nil {
		t.Fatalf("Initialise: %v", err)
	}
	if in.ProviderURL == "" || in.Ref == "" {
		t.Fatalf("Initialise gave %+v", in)
	}
	return in
}

// hang is a provider that never answers: it reads the request (so that the
// server notices the client giving up) and waits for that, or 5 s.
func hang(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       5 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func postForm(t *testing.T, target string, form string) *http.Response {
	t.Helper()
	res, err := noRedirect.Post(target, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}
