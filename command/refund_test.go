package command

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// refundingFake is the fake family with a refund call: it answers each
// refund id once (a repeat answers the same), or fails as told.
type refundingFake struct {
	*fakeProvider
	fail  atomic.Pointer[error]
	mu    sync.Mutex
	asked map[string]provider.RefundRequest // by refund id
	calls atomic.Int64
}

func (f *refundingFake) Refund(_ context.Context, r provider.RefundRequest) (provider.RefundResult, error) {
	f.calls.Add(1)
	if err := f.fail.Load(); err != nil && *err != nil {
		return provider.RefundResult{}, *err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked[r.RefundID] = r
	return provider.RefundResult{Ref: "fr-" + r.RefundID}, nil
}

// withRefunds serves every sandbox method with a refunding fake, but
// wallet_b, whose family has no refund call.
func withRefunds(h *harness) *refundingFake {
	f := &refundingFake{fakeProvider: h.prov, asked: map[string]provider.RefundRequest{}}
	sandbox := map[schema.Method]provider.Adapter{}
	for _, m := range schema.AllMethods() {
		sandbox[m] = f
	}
	sandbox[schema.MethodWalletB] = h.prov
	sandbox[schema.MethodSelect], sandbox[schema.MethodUSDTDirect] = provider.Own{}, provider.Own{}
	h.setProviders(provider.NewRegistry(sandbox, nil))
	return f
}

// paidOrder creates a sandbox order of method (100.00 CNY) and pays it.
func paidOrder(t *testing.T, h *harness, method string) string {
	t.Helper()
	p := h.baseParams()
	p["paymentMethod"] = method
	id := h.createOK(p)["paymentId"].(string)
	sandboxMove(t, h, id, "pay")
	return id
}

func refundParams(h *harness, id, amount string, kv ...string) schema.Params {
	p := schema.Params{"appid": h.acct.AppID, "action": "refund", "paymentId": id, "amount": amount}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(p, kv[i])
		} else {
			p[kv[i]] = kv[i+1]
		}
	}
	return p
}

func (h *harness) refund(p schema.Params, header ...string) *response {
	h.t.Helper()
	return h.postTo("/api/order/refund", signed(p, h.acct.APIKey), header...)
}

func (h *harness) order(t *testing.T, id string) *schema.Order {
	t.Helper()
	o, err := h.store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestRefundRequest: POST /api/order/refund in createorder's check order,
// then the refund's own rules, each case on an order of its own.
func TestRefundRequest(t *testing.T) {
	h := newRedisHarness(t)
	withRefunds(h)
	unpaid := func() string { return h.createOK(h.baseParams())["paymentId"].(string) }
	paid := func() string { return paidOrder(t, h, "wallet_a") }
	tests := []struct {
		name     string
		id       func() string
		p        func(id string) schema.Params
		status   int
		kind     string
		refunded schema.Amount // the order's after the call
	}{
		{"partial", paid, func(id string) schema.Params { return refundParams(h, id, "30.50") }, 200, "", 30_50},
		{"full, numeric literal", paid, func(id string) schema.Params { return refundParams(h, id, "100") }, 200, "", 100_00},
		{"more than paid", paid, func(id string) schema.Params { return refundParams(h, id, "100.01") }, 409, "refund_exceeds_paid", 0},
		{"unpaid order", unpaid, func(id string) schema.Params { return refundParams(h, id, "1") }, 409, "conflict", 0},
		{"provider without refunds", func() string { return paidOrder(t, h, "wallet_b") },
			func(id string) schema.Params { return refundParams(h, id, "1") }, 422, "refund_not_supported", 0},
		{"zero amount", paid, func(id string) schema.Params { return refundParams(h, id, "0") }, 400, "invalid_parameter", 0},
		{"three decimals", paid, func(id string) schema.Params { return refundParams(h, id, "1.001") }, 400, "invalid_parameter", 0},
		{"missing amount", paid, func(id string) schema.Params { return refundParams(h, id, "", "amount", "") }, 400, "missing_parameter", 0},
		{"wrong action", paid, func(id string) schema.Params { return refundParams(h, id, "1", "action", "cancel") }, 400, "invalid_parameter", 0},
		{"bad clientRefundId", paid, func(id string) schema.Params { return refundParams(h, id, "1", "clientRefundId", "a b") }, 400, "invalid_parameter", 0},
		{"no such order", func() string { return "P-nothing" }, func(id string) schema.Params { return refundParams(h, id, "1") }, 404, "order_not_found", 0},
		{"clientip differs", paid, func(id string) schema.Params { return refundParams(h, id, "1", "clientip", "203.0.113.9") }, 403, "clientip_mismatch", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.id()
			r := h.refund(tt.p(id))
			if r.Status != tt.status || r.Body.Error != tt.kind {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Raw, tt.status, tt.kind)
			}
			if id == "P-nothing" {
				return
			}
			if o := h.order(t, id); o.Refunded != tt.refunded || o.RefundReserved != tt.refunded {
				t.Fatalf("refunded %d reserved %d, want %d", o.Refunded, o.RefundReserved, tt.refunded)
			}
			if r.Status != 200 {
				return
			}
			d := r.Data(t)
			if d["status"] != "succeeded" || d["paymentId"] != id || d["refundedAmount"] != tt.refunded.String() || !schema.IsRefundID(d["refundId"].(string)) {
				t.Fatalf("data %v", d)
			}
		})
	}
	t.Run("bad sign", func(t *testing.T) {
		if r := h.postTo("/api/order/refund", signed(refundParams(h, paid(), "1"), "wrong")); r.Status != 401 || r.Body.Error != "invalid_sign" {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
}

// TestRefundsNeverExceedPaid: 20 refunds of 10% each at once, on one
// order: exactly ten succeed, the others are refused, and the refunded
// total is the paid amount, never more.
func TestRefundsNeverExceedPaid(t *testing.T) {
	h := newRedisHarness(t)
	withRefunds(h)
	id := paidOrder(t, h, "wallet_a")
	var wg sync.WaitGroup
	var ok, refused atomic.Int64
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &schema.Order{ID: id, AppID: h.acct.AppID, Method: schema.MethodWalletA, Sandbox: true}
			_, _, err := h.uc.Refund.Refund(context.Background(), o, RefundAsk{OrderID: id, Amount: 10_00, Reason: fmt.Sprint("part ", i)})
			switch {
			case err == nil:
				ok.Add(1)
			case kindOf(err) == platform.KindRefundExceeded:
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	o := h.order(t, id)
	if ok.Load() != 10 || refused.Load() != 10 || o.Refunded != 100_00 || o.RefundReserved != 100_00 {
		t.Fatalf("%d refunded, %d refused, order refunded %d reserved %d", ok.Load(), refused.Load(), o.Refunded, o.RefundReserved)
	}
	rs, err := h.store.Refunds(context.Background(), id)
	if err != nil || len(rs) != 10 {
		t.Fatalf("%d refund records, %v", len(rs), err)
	}
}

// TestRefundClientRefundID: the same clientRefundId is the same refund
// (answered again, nothing refunded twice); with another amount it is a
// conflict.
func TestRefundClientRefundID(t *testing.T) {
	h := newRedisHarness(t)
	f := withRefunds(h)
	id := paidOrder(t, h, "wallet_a")
	first := h.refund(refundParams(h, id, "40", "clientRefundId", "r-1", "reason", "damaged"))
	again := h.refund(refundParams(h, id, "40.00", "clientRefundId", "r-1"))
	other := h.refund(refundParams(h, id, "41", "clientRefundId", "r-1"))
	if first.Status != 200 || again.Status != 200 || other.Status != 409 || other.Body.Error != "refund_mismatch" {
		t.Fatalf("first %s\nagain %s\nother %s", first.Raw, again.Raw, other.Raw)
	}
	a, b := first.Data(t), again.Data(t)
	if a["refundId"] != b["refundId"] || b["idempotent"] != true || a["idempotent"] != false || b["reason"] != "damaged" {
		t.Fatalf("first %v, again %v", a, b)
	}
	if o := h.order(t, id); o.Refunded != 40_00 || f.calls.Load() != 1 {
		t.Fatalf("refunded %d after %d provider calls", o.Refunded, f.calls.Load())
	}
}

// TestRefundIdempotencyKey: a refund retried with its Idempotency-Key is
// answered from the first call; the key with another amount is refused.
func TestRefundIdempotencyKey(t *testing.T) {
	h := newRedisHarness(t)
	withRefunds(h)
	id := paidOrder(t, h, "wallet_a")
	first := h.refund(refundParams(h, id, "10"), HeaderIdempotencyKey, "k-1")
	again := h.refund(refundParams(h, id, "10"), HeaderIdempotencyKey, "k-1")
	other := h.refund(refundParams(h, id, "11"), HeaderIdempotencyKey, "k-1")
	if first.Status != 200 || again.Raw != first.Raw || again.Header.Get(headerIdempotentReplayed) != "true" {
		t.Fatalf("first %s\nagain %s", first.Raw, again.Raw)
	}
	if other.Status != 409 || other.Body.Error != "idempotency_mismatch" {
		t.Fatalf("other %d %s", other.Status, other.Raw)
	}
	if o := h.order(t, id); o.Refunded != 10_00 {
		t.Fatalf("refunded %d", o.Refunded)
	}
}

// TestProviderRefund: the provider is told the refund in what it charged,
// keyed by our refund id; a refusal fails the refund and frees its amount;
// a provider that does not answer leaves it pending until the recovery
// asks again.
func TestProviderRefund(t *testing.T) {
	h := newRedisHarness(t)
	f := withRefunds(h)
	ctx := context.Background()
	id := paidOrder(t, h, "wallet_a")
	refused := fmt.Errorf("fake: %w", provider.ErrRefused)
	f.fail.Store(&refused)
	r := h.refund(refundParams(h, id, "100"))
	if d := r.Data(t); r.Status != 200 || d["status"] != "failed" || d["error"] == nil {
		t.Fatalf("refused: %s", r.Raw)
	}
	if o := h.order(t, id); o.Refunded != 0 || o.RefundReserved != 0 {
		t.Fatalf("a failed refund kept %d reserved", o.RefundReserved)
	}
	if b := cnyBalance(t, h); b.Pending+b.Available != 100_00 {
		t.Fatalf("the provider's no left the merchant debited: %+v", b)
	}
	down := fmt.Errorf("fake: %w", provider.ErrUnavailable)
	f.fail.Store(&down)
	r = h.refund(refundParams(h, id, "100"))
	pending := r.Data(t)
	if pending["status"] != "pending" {
		t.Fatalf("unanswered: %s", r.Raw)
	}
	if o := h.order(t, id); o.RefundReserved != 100_00 || o.Refunded != 0 {
		t.Fatalf("pending refund: reserved %d refunded %d", o.RefundReserved, o.Refunded)
	}
	if r := h.refund(refundParams(h, id, "0.01")); r.Body.Error != "refund_exceeds_paid" {
		t.Fatalf("a pending refund's amount is reserved: %s", r.Raw)
	}
	f.fail.Store(nil)
	shard, _ := schema.ParseOrderID(id)
	rec := h.uc.Recovery.With(time.Hour, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := rec.SweepRefunds(ctx, shard); n != 1 || err != nil {
		t.Fatalf("recovered %d, %v", n, err)
	}
	got, err := h.store.Refund(ctx, id, pending["refundId"].(string))
	if err != nil || got.Status != schema.RefundSucceeded || got.ProviderRef != "fr-"+got.ID {
		t.Fatalf("after recovery %+v %v", got, err)
	}
	if asked := f.asked[got.ID]; asked.Amount != (provider.Money{Amount: 100_00, Currency: "CNY"}) || asked.OrderID != id {
		t.Fatalf("provider was asked %+v", asked)
	}
	if o := h.order(t, id); o.Refunded != 100_00 || o.RefundReserved != 100_00 {
		t.Fatalf("refunded %d reserved %d", o.Refunded, o.RefundReserved)
	}
	if n, _ := rec.SweepRefunds(ctx, shard); n != 0 {
		t.Fatalf("a second sweep recovered %d", n)
	}
}

// TestRefundEvents: every refund step is one event of the order carrying
// the refund record; the last one the refunded total.
func TestRefundEvents(t *testing.T) {
	h := newRedisHarness(t)
	withRefunds(h)
	id := paidOrder(t, h, "wallet_a")
	if r := h.refund(refundParams(h, id, "25")); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	types, _ := orderEvents(t, h, id)
	if fmt.Sprint(types) != "[created ready paid refund refund]" {
		t.Fatalf("events %v", types)
	}
	shard, _ := schema.ParseOrderID(id)
	msgs, err := h.rdb.XRevRangeN(context.Background(), schema.EventsKey(shard), "+", "-", 1).Result()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := schema.DecodeEvent(msgs[0].ID, msgs[0].Values)
	if err != nil || ev.Refund == nil || ev.Refund.Status != schema.RefundSucceeded || ev.Order.Refunded != 25_00 {
		t.Fatalf("last event %+v %v", ev, err)
	}
}
