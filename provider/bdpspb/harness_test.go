package bdpspb

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

// result is what the test's return receiver made of one browser return.
type result struct {
	n   provider.Notification
	err error
}

// harness is a real HTTP server running the simulator under
// /sandbox/provider/bdpsp_b and a receiver at
// /api/gatewaynotification/bdpsp_b/* that verifies with the adapter and
// answers with its Reply, as the gateway does.
type harness struct {
	base    string
	sim     *Simulator
	adapter *Adapter
	got     chan result
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{base: "http://" + ln.Addr().String(), got: make(chan result, 16)}
	simBase := h.base + "/sandbox/provider/" + Family
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	notifier := &provider.Notifier{Client: noRedirect, Delays: []time.Duration{}}
	h.sim = NewSimulator(SandboxSimConfig(simBase), &provider.MemState{}, notifier, nil)
	h.sim.Register(app.Group("/sandbox/provider/" + Family))
	app.Post("/api/gatewaynotification/"+Family+"/*", h.receive)
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	h.adapter = newAdapter(t, SandboxConfig(simBase), provider.CallerConfig{Timeout: 2 * time.Second})
	return h
}

func newAdapter(t *testing.T, cfg Config, cc provider.CallerConfig) *Adapter {
	t.Helper()
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, provider.NewCaller(Family, cc, nil, m, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (h *harness) receive(c *fiber.Ctx) error {
	body := string(c.Body())
	form, _ := url.ParseQuery(body)
	n, err := h.adapter.Verify(c.UserContext(), &provider.Request{Body: []byte(body), Form: form, Path: c.Params("*")})
	h.got <- result{n: n, err: err}
	rep := h.adapter.Reply(n, err)
	if rep.Location == "" {
		rep.Location = h.base + "/payment/" + form.Get("mer_txnid") // what the gateway fills in
	}
	return c.Redirect(rep.Location, rep.Status)
}

func (h *harness) next(t *testing.T) result {
	t.Helper()
	select {
	case r := <-h.got:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no return arrived")
		return result{}
	}
}

// payment is a USD 100.00 order charged 12150.00 BDT.
func (h *harness) payment(orderID string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: schema.MethodBDPSPB,
		Charge:      provider.Money{Amount: 1215000, Currency: "BDT"},
		Original:    provider.Money{Amount: 10000, Currency: "USD"},
		Description: "Sandbox order", CustomerName: "Test Payer",
		NotifyURL:  h.base + "/api/gatewaynotification/" + Family + "/return",
		SuccessURL: h.base + "/payment/" + orderID, FailURL: h.base + "/payment/" + orderID,
		CancelURL: h.base + "/payment/" + orderID,
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

// returnTo posts a browser return for orderID to our receiver.
func (h *harness) returnTo(t *testing.T, path string, form url.Values) (*http.Response, result) {
	t.Helper()
	res := postForm(t, h.base+"/api/gatewaynotification/"+Family+"/"+path, form.Encode())
	return res, h.next(t)
}

var noRedirect = &http.Client{
	Timeout:       5 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func postForm(t *testing.T, target, form string) *http.Response {
	t.Helper()
	res, err := noRedirect.Post(target, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
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
