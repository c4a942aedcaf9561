package fiatpsp_test

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"
	fiatpspsim "github.com/paygate/gateway/web/sandbox/fiatpsp"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

const (
	simMount   = "/sandbox/provider/fiatpsp"
	notifyPath = "/api/gatewaynotification/fiatpsp/" + fiatpsp.NotifyPath
)

// verified is one notification as the receiver saw it.
type verified struct {
	form url.Values
	n    provider.Notification
	err  error
	rep  provider.Reply
}

// harness is a gateway in miniature over real HTTP: the simulator mounted
// where the gateway mounts it, and a notification receiver that verifies
// with the adapter and answers its Reply.
type harness struct {
	base     string
	sim      *fiatpspsim.Simulator
	adapter  *fiatpsp.Adapter
	got      *providertest.Inbox[verified]
	failNext atomic.Int32 // answers HTTP 500 to that many notifications first
}

// startHarness runs the harness; adjust may change both configurations
// (they start as the sandbox's).
func startHarness(t *testing.T, adjust func(*fiatpspsim.SimConfig, *fiatpsp.Config)) *harness {
	t.Helper()
	srv := providertest.Listen(t)
	h := &harness{base: srv.Base, got: providertest.NewInbox[verified]()}
	simCfg, cfg := fiatpspsim.SandboxSimConfig(h.base+simMount).WithCost(simkit.FixedCost(providertest.StatementSchedule)), fiatpsp.SandboxConfig(h.base+simMount)
	cfg.Caller = provider.CallerConfig{Timeout: 2 * time.Second}
	if adjust != nil {
		adjust(&simCfg, &cfg)
	}
	h.adapter = newAdapter(t, cfg)
	h.sim = fiatpspsim.NewSimulator(simCfg, &provider.MemState{}, &provider.Notifier{Delays: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}}, nil)
	app := sandboxtest.App()
	h.sim.Register(app.Group(simMount))
	app.Post(notifyPath, sandboxtest.Handle(h.receive))
	srv.Serve(app)
	return h
}

// receive is the gateway's notification endpoint.
func (h *harness) receive(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
	form, _ := url.ParseQuery(string(d.Body))
	r := &provider.Request{Header: map[string][]string{}, Body: d.Body, Form: form, RemoteIP: d.RemoteIP, Path: fiatpsp.NotifyPath}
	n, err := h.adapter.Verify(ctx, r)
	rep := h.adapter.Reply(n, err)
	if h.failNext.Add(-1) >= 0 {
		rep = provider.Reply{Status: 500, Body: "busy"}
	}
	h.got.Put(verified{form: form, n: n, err: err, rep: rep})
	return rep
}

// none checks that no notification arrives for a while.
func (h *harness) none(t *testing.T) {
	t.Helper()
	if v, ok := h.got.Within(300 * time.Millisecond); ok {
		t.Fatalf("unexpected notification %v", v.form)
	}
}
