package command

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// channelRig is the harness with wallet_a (and fiatpsp) served by several
// sandbox channels, each a fake provider of its own, routed by data in the
// harness's Redis.
type channelRig struct {
	h      *harness
	dir    *channel.Directory
	store  *channel.Store
	provs  map[string]*fakeProvider
	health *recordingHealth
}

// withChannels gives wallet_a the sandbox channels ids, in that order.
func (h *harness) withChannels(t *testing.T, ids ...string) *channelRig {
	t.Helper()
	r := &channelRig{h: h, provs: map[string]*fakeProvider{}, health: &recordingHealth{}}
	var chs []provider.Channel
	for _, id := range ids {
		p := &fakeProvider{Base: testBase}
		r.provs[id] = p
		chs = append(chs, provider.Channel{ID: id, Adapter: p})
	}
	own := []provider.Channel{{ID: channel.Default, Adapter: provider.Own{}}}
	reg, err := provider.NewChannelRegistry(map[schema.Method][]provider.Channel{
		schema.MethodWalletA: chs, schema.MethodSelect: own, schema.MethodUSDTDirect: own,
		schema.MethodFiatPSP: {{ID: channel.Default, Adapter: &fakeProvider{Base: testBase}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.setProviders(reg)
	r.dir = channel.NewDirectory(h.rdb, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r.store = channel.NewStore(h.rdb)
	rt := h.uc.Create.init.route
	rt.router, rt.health = channel.NewRouter(r.dir, reg), r.health
	return r
}

func testEntry() audit.Entry {
	return audit.Entry{At: time.Now().UTC(), Realm: audit.RealmCLI, Action: "channel.set", Target: "channel", Source: "cli"}
}

func (r *channelRig) ref(m schema.Method, id string) channel.Ref {
	return channel.Ref{Sandbox: true, Method: m, ID: id}
}

// set stores id's wallet_a settings and reloads the routing copy.
func (r *channelRig) set(t *testing.T, id string, s channel.Settings) {
	t.Helper()
	r.setFor(t, schema.MethodWalletA, id, s)
}

func (r *channelRig) setFor(t *testing.T, m schema.Method, id string, s channel.Settings) {
	t.Helper()
	if s.Weight == 0 {
		s.Weight = 1
	}
	if err := r.store.Set(context.Background(), r.ref(m, id), s, testEntry()); err != nil {
		t.Fatal(err)
	}
	r.load(t)
}

func (r *channelRig) load(t *testing.T) {
	t.Helper()
	if err := r.dir.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// fail makes channel id's provider answer err.
func (r *channelRig) fail(id string, err error) { r.provs[id].Fail.Store(&err) }

// create runs a wallet_a create of amount through the use case, as the
// door would.
func (r *channelRig) create(amount string) (*schema.Order, error) {
	p := r.h.baseParams()
	p["amount"] = amount
	o, _, err := r.h.create.Create(context.Background(), signed(p, r.h.acct.APIKey), netip.MustParseAddr(testIP), false)
	return o, err
}

// mustReady creates and wants a ready order, read back from Redis.
func (r *channelRig) mustReady(t *testing.T, amount string) *schema.Order {
	t.Helper()
	o, err := r.create(amount)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	got := r.h.order(t, o.ID)
	if got.Status != schema.StatusReady {
		t.Fatalf("order %s is %s, want ready", o.ID, got.Status)
	}
	return got
}

// initRecords are the order's init attempts on its timeline, as
// "channel:reason", oldest first.
func (r *channelRig) initRecords(id string) []string {
	var out []string
	recs := r.h.records(id)
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Mode == schema.ModeInit && recs[i].Verdict == schema.VerdictInitFailed {
			out = append(out, recs[i].Channel+":"+recs[i].Detail)
		}
	}
	return out
}

// recordingHealth is a breaker that remembers what it was told and lets
// through what the test says.
type recordingHealth struct {
	mu      sync.Mutex
	reports []string
	closed  map[string]bool // refs whose Probe answers false
}

func (h *recordingHealth) Report(_ context.Context, ref channel.Ref, o channel.Outcome) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := "ok"
	if !o.OK {
		r = o.Reason
	}
	h.reports = append(h.reports, ref.ID+":"+r)
}

func (h *recordingHealth) Probe(_ context.Context, c channel.Candidate) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.closed[c.Ref.ID]
}
