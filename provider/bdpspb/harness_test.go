package bdpspb_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	bdpspb "github.com/paygate/gateway/provider/bdpspb"
	bdpspbsim "github.com/paygate/gateway/web/sandbox/bdpspb"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
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
	sim     *bdpspbsim.Simulator
	adapter *bdpspb.Adapter
	got     *providertest.Inbox[result]
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := providertest.Listen(t)
	h := &harness{base: srv.Base, got: providertest.NewInbox[result]()}
	simBase := h.base + "/sandbox/provider/" + bdpspb.Family
	app := sandboxtest.App()
	notifier := &provider.Notifier{Client: providertest.NoRedirects(nil), Delays: []time.Duration{}}
	h.sim = bdpspbsim.NewSimulator(bdpspbsim.SandboxSimConfig(simBase).WithCost(simkit.FixedCost(providertest.StatementSchedule)), &provider.MemState{}, notifier, nil)
	h.sim.Register(app.Group("/sandbox/provider/" + bdpspb.Family))
	app.Post("/api/gatewaynotification/"+bdpspb.Family+"/*", sandboxtest.Handle(h.receive))
	srv.Serve(app)
	h.adapter = newAdapter(t, bdpspb.SandboxConfig(simBase), provider.CallerConfig{Timeout: 2 * time.Second})
	return h
}

func newAdapter(t *testing.T, cfg bdpspb.Config, cc provider.CallerConfig) *bdpspb.Adapter {
	t.Helper()
	a, err := bdpspb.New(cfg, providertest.Caller(t, bdpspb.Family, cc, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (h *harness) receive(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
	body := string(d.Body)
	form, _ := url.ParseQuery(body)
	n, err := h.adapter.Verify(ctx, &provider.Request{Body: []byte(body), Form: form, Path: d.Path})
	h.got.Put(result{n: n, err: err})
	rep := h.adapter.Reply(n, err)
	if rep.Location == "" {
		rep.Location = h.base + "/payment/" + form.Get("mer_txnid") // what the gateway fills in
	}
	return rep
}

// payment is a USD 100.00 order charged 12150.00 BDT.
func (h *harness) payment(orderID string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: schema.MethodBDPSPB,
		Charge:      provider.Money{Amount: 1215000, Currency: "BDT"},
		Original:    provider.Money{Amount: 10000, Currency: "USD"},
		Description: "Sandbox order", CustomerName: "Test Payer",
		NotifyURL:  h.base + "/api/gatewaynotification/" + bdpspb.Family + "/return",
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
	res := providertest.PostForm(t, nil, h.base+"/api/gatewaynotification/"+bdpspb.Family+"/"+path, form.Encode())
	return res, h.got.Next(t)
}
