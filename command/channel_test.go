package command

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/fakeprovider"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// secretB is channel b's own notification secret.
const secretB = "channel-b-secret"

// withTwoChannels serves sandbox wallet_a through two refunding fake
// accounts, default (signing with fakeSecret) and b (signing with keyB),
// recording their calls apart.
func withTwoChannels(h *harness, keyB string) (def, b *refundingFake) {
	def = &refundingFake{fakeProvider: &fakeProvider{Base: testBase}, asked: map[string]provider.RefundRequest{}}
	b = &refundingFake{fakeProvider: &fakeProvider{Base: testBase, Key: keyB}, asked: map[string]provider.RefundRequest{}}
	own := []provider.Channel{{ID: "default", Adapter: provider.Own{}}}
	reg, err := provider.NewChannelRegistry(map[schema.Method][]provider.Channel{
		schema.MethodSelect: own, schema.MethodUSDTDirect: own,
		schema.MethodWalletA: {{ID: "default", Adapter: def}, {ID: "b", Adapter: b}},
	}, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.setProviders(reg)
	return def, b
}

// onChannel creates a sandbox wallet_a order and puts it on channel id, as
// routing would have.
func onChannel(t *testing.T, h *harness, id string) string {
	t.Helper()
	oid := h.createOK(h.baseParams())["paymentId"].(string)
	shard, _ := schema.ParseOrderID(oid)
	if err := h.rdb.HSet(context.Background(), schema.OrderKey(shard, oid), schema.FChannel, id).Err(); err != nil {
		t.Fatal(err)
	}
	return oid
}

// notifyAt posts a fake notification to path, signed with key.
func (h *harness) notifyAt(path, key string, n fakeNote) *response {
	h.t.Helper()
	body, _ := json.Marshal(n)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Fake-Sig", fakeprovider.SignWith(key, body))
	return h.do(req)
}

// TestNotificationsKeepTheOrdersChannel: a notification settles an order
// only when verified with the secret of the channel the order went to, on
// the plain path (which tries the family's channels in order) and on a
// channel's own path (which tries that channel only).
func TestNotificationsKeepTheOrdersChannel(t *testing.T) {
	h := newRedisHarness(t)
	withTwoChannels(h, secretB)
	const plain, onB = "/sandbox/gatewaynotification/wallet_a/notify", "/sandbox/gatewaynotification/wallet_a/ch/b/notify"
	tests := []struct {
		name, channel, path, key string
		wantStatus               int
		wantOrder                schema.Status
		wantVerdict, wantBy      string // of the order's last record; "" none kept on the order
	}{
		{"default's order, b's secret, plain path", "", plain, secretB, 400, schema.StatusReady, schema.VerdictChannelMismatch, "b"},
		{"default's order, b's secret, b's path", "", onB, secretB, 400, schema.StatusReady, schema.VerdictChannelMismatch, "b"},
		{"b's order, default's secret, plain path", "b", plain, fakeSecret, 400, schema.StatusReady, schema.VerdictChannelMismatch, "default"},
		{"b's order, default's secret, b's path", "b", onB, fakeSecret, 400, schema.StatusReady, "", ""},
		{"b's order, b's secret, plain path", "b", plain, secretB, 200, schema.StatusPaid, schema.VerdictApplied, "b"},
		{"b's order, b's secret, b's path", "b", onB, secretB, 200, schema.StatusPaid, schema.VerdictApplied, "b"},
		{"default's order, its secret, plain path", "", plain, fakeSecret, 200, schema.StatusPaid, schema.VerdictApplied, "default"},
		{"unknown channel's path", "b", "/sandbox/gatewaynotification/wallet_a/ch/nosuch/notify", secretB, 404, schema.StatusReady, "", ""},
		{"live channel path of a sandbox channel", "b", "/api/gatewaynotification/wallet_a/ch/b/notify", secretB, 404, schema.StatusReady, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := onChannel(t, h, tt.channel)
			r := h.notifyAt(tt.path, tt.key, fakeNote{Order: id, Outcome: "paid", Amount: "100.00", Currency: "CNY"})
			if r.Status != tt.wantStatus {
				t.Fatalf("answer %d %q, want %d", r.Status, r.Raw, tt.wantStatus)
			}
			if o := h.order(t, id); o.Status != tt.wantOrder {
				t.Fatalf("order %s, want %s", o.Status, tt.wantOrder)
			}
			recs := h.records(id)
			if tt.wantVerdict == "" {
				if len(recs) != 0 {
					t.Fatalf("records %+v kept on the order", recs)
				}
				return
			}
			if len(recs) == 0 || recs[0].Verdict != tt.wantVerdict || recs[0].Channel != tt.wantBy {
				t.Fatalf("records %+v, want verdict %s by channel %s", recs, tt.wantVerdict, tt.wantBy)
			}
		})
	}
}

// TestPlainPathAsksTheOrdersChannelWhenSecretsAreShared: accounts that
// share a secret (the sandbox's channels do) all verify a notification;
// the plain path then takes the order's own channel's verification, so it
// does not refuse the order as another channel's.
func TestPlainPathAsksTheOrdersChannelWhenSecretsAreShared(t *testing.T) {
	h := newRedisHarness(t)
	withTwoChannels(h, fakeSecret)
	id := onChannel(t, h, "b")
	r := h.notifyAt("/sandbox/gatewaynotification/wallet_a/notify", fakeSecret, fakeNote{Order: id, Outcome: "paid", Amount: "100.00", Currency: "CNY"})
	if r.Status != 200 || h.order(t, id).Status != schema.StatusPaid {
		t.Fatalf("answer %d %q, order %s", r.Status, r.Raw, h.order(t, id).Status)
	}
	if recs := h.records(id); recs[0].Channel != "b" {
		t.Fatalf("verified by %q, want b", recs[0].Channel)
	}
}

// TestQueryAndRefundGoToTheOrdersChannel: the provider query and the
// refund of an order go to the account it went to, never the default; an
// order whose channel is no longer configured gets an error saying so.
func TestQueryAndRefundGoToTheOrdersChannel(t *testing.T) {
	h := newRedisHarness(t)
	def, b := withTwoChannels(h, secretB)
	ctx := context.Background()

	id := onChannel(t, h, "b")
	_ = h.uc.Notifications.Reconcile(ctx, h.order(t, id)) // the fake knows no payment: ErrNotFound
	if def.Queries.Load() != 0 || b.Queries.Load() != 1 {
		t.Fatalf("queries: default %d, b %d; want 0, 1", def.Queries.Load(), b.Queries.Load())
	}

	sandboxMove(t, h, id, "pay")
	if r := h.refund(refundParams(h, id, "10")); r.Status != 200 {
		t.Fatalf("refund: %d %s", r.Status, r.Raw)
	}
	if def.calls.Load() != 0 || b.calls.Load() != 1 {
		t.Fatalf("refund calls: default %d, b %d; want 0, 1", def.calls.Load(), b.calls.Load())
	}

	gone := onChannel(t, h, "gone")
	err := h.uc.Notifications.Reconcile(ctx, h.order(t, gone))
	if platform.KindOf(err) != platform.KindUnavailable || !strings.Contains(err.Error(), "sandbox.wallet_a.gone") {
		t.Fatalf("query of an order on a channel no longer configured: %v", err)
	}
	sandboxMove(t, h, gone, "pay")
	if r := h.refund(refundParams(h, gone, "10")); r.Status != 503 || !strings.Contains(r.Raw, "no longer configured") {
		t.Fatalf("refund of an order on a channel no longer configured: %d %s", r.Status, r.Raw)
	}
	if def.calls.Load() != 0 || b.calls.Load() != 1 {
		t.Fatal("a refund of an order on an unconfigured channel went to another account")
	}
}

// channelSim is a simulator of one sandbox channel: Settle sends the paid
// notification to its channel's path, signed with its key, and counts.
type channelSim struct {
	h         *harness
	path, key string
	order     string
	calls     int
}

func (s *channelSim) Settle(context.Context, string, bool) error {
	s.calls++
	s.h.notifyAt(s.path, s.key, fakeNote{Order: s.order, Outcome: "paid", Amount: "100.00", Currency: "CNY"})
	return nil
}

// TestSandboxDriverUsesTheOrdersChannelSimulator: the sandbox driver pays
// an order through the simulator of the channel the order went to; an
// order whose channel has no simulator any more gets an error saying so.
func TestSandboxDriverUsesTheOrdersChannelSimulator(t *testing.T) {
	h := newRedisHarness(t)
	withTwoChannels(h, secretB)
	id := onChannel(t, h, "b")
	def := &channelSim{h: h, path: "/sandbox/gatewaynotification/wallet_a/notify", key: fakeSecret, order: id}
	b := &channelSim{h: h, path: "/sandbox/gatewaynotification/wallet_a/ch/b/notify", key: secretB, order: id}
	h.uc.Sandbox.sims = Simulators{
		{Sandbox: true, Method: schema.MethodWalletA, ID: "default"}: def,
		{Sandbox: true, Method: schema.MethodWalletA, ID: "b"}:       b,
	}
	if r := sandboxMove(t, h, id, "pay"); h.order(t, id).Status != schema.StatusPaid {
		t.Fatalf("pay: %s", r.Raw)
	}
	if def.calls != 0 || b.calls != 1 {
		t.Fatalf("simulators asked: default %d, b %d; want 0, 1", def.calls, b.calls)
	}

	gone := onChannel(t, h, "gone")
	q := url.Values{"appid": {h.acct.AppID}, "key": {h.acct.QueryKey}}
	if r := h.do(newPost("/sandbox/orders/"+gone+"/pay?"+q.Encode(), "")); r.Status != 503 || !strings.Contains(r.Raw, "no longer configured") {
		t.Fatalf("pay of an order on a channel no longer configured: %d %s", r.Status, r.Raw)
	}
	if h.order(t, gone).Status != schema.StatusReady {
		t.Fatal("an order on a channel no longer configured was paid without its provider")
	}
}
