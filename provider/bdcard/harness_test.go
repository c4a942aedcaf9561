package bdcard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	bdcard "github.com/paygate/gateway/provider/bdcard"
	bdcardsim "github.com/paygate/gateway/web/sandbox/bdcard"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
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
	sim     *bdcardsim.Simulator
	adapter *bdcard.Adapter
	got     *providertest.Inbox[result]
}

func newHarness(t *testing.T, family string) *harness {
	t.Helper()
	srv := providertest.Listen(t)
	h := &harness{family: family, base: srv.Base, got: providertest.NewInbox[result]()}
	simBase := h.base + "/sandbox/provider/" + family
	app := sandboxtest.App()
	notifier := &provider.Notifier{Client: &http.Client{Timeout: 5 * time.Second}, Delays: []time.Duration{}}
	h.sim = bdcardsim.NewSimulator(bdcardsim.SandboxSimConfigFamily(family, simBase).WithCost(simkit.FixedCost(providertest.StatementSchedule)), &provider.MemState{}, notifier, nil)
	h.sim.Register(app.Group("/sandbox/provider/" + family))
	app.Post("/api/gatewaynotification/"+family+"/*", sandboxtest.Handle(h.receive))
	srv.Serve(app)
	h.adapter = newAdapter(t, bdcard.SandboxConfigFamily(family, simBase), provider.CallerConfig{Timeout: 2 * time.Second})
	return h
}

func newAdapter(t *testing.T, cfg bdcard.Config, cc provider.CallerConfig) *bdcard.Adapter {
	t.Helper()
	a, err := bdcard.New(cfg, providertest.Caller(t, cfg.Family, cc, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (h *harness) receive(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
	body := string(d.Body)
	form, _ := url.ParseQuery(body)
	n, err := h.adapter.Verify(ctx, &provider.Request{Body: []byte(body), Form: form, Path: d.Path})
	h.got.Put(result{n: n, err: err, body: body})
	return h.adapter.Reply(n, err)
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
