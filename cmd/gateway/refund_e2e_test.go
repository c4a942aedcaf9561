package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestRefundEndToEnd: through the binary, a sandbox wallet_a order paid at
// its simulator is refunded in two parts through the simulator's refund
// call; a third part over the rest is refused; action=order lists both
// refunds, the listing (ClickHouse, by way of the projector) shows the
// refunded amount, and each refund reaches the local receiver as a refund
// webhook, MD5-signed with its Standard Webhooks headers.
func TestRefundEndToEnd(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
	e.run("migrate")
	got := make(chan hookRequest, 10)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		got <- hookRequest{form: form, header: r.Header.Clone(), body: string(raw)}
		_, _ = io.WriteString(w, "success")
	}))
	t.Cleanup(rcv.Close)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--callback", rcv.URL+"/hook", "--json")
	s := e.serve()

	p := createParams(shop.AppID)
	p["clientOrderId"] = "RF-1"
	id, _ := s.create(t, p, shop.APIKey).Data["paymentId"].(string)
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay: %+v", r)
	}
	if paid := nextHook(t, got); paid.form.Get("status_str") != "paid" {
		t.Fatalf("first webhook %v", paid.form)
	}
	refund := func(amount, crid string) apiResponse {
		return s.signedPost(t, "/api/order/refund", schema.Params{"appid": shop.AppID, "action": "refund", "paymentId": id,
			"amount": amount, "clientRefundId": crid, "reason": "returned"}, shop.APIKey, "")
	}
	first, second := refund("30.00", "R-1"), refund("20.50", "R-2")
	for _, r := range []apiResponse{first, second} {
		if r.Status != 200 || r.Data["status"] != "succeeded" {
			t.Fatalf("refund: %+v", r)
		}
	}
	if second.Data["refundedAmount"] != "50.50" {
		t.Fatalf("refunded after two parts: %+v", second.Data)
	}
	if r := refund("50.01", "R-3"); r.Status != 409 || r.Error != "refund_exceeds_paid" {
		t.Fatalf("over the rest: %+v", r)
	}
	hooks := map[string]hookRequest{} // by refund id: two deliveries, in either order
	for range 2 {
		h := nextHook(t, got)
		hooks[h.form.Get("refundId")] = h
	}
	for _, want := range []apiResponse{first, second} {
		h := hooks[want.Data["refundId"].(string)]
		f := h.form
		params := schema.Params{}
		for k := range f {
			params[k] = f.Get(k)
		}
		if f.Get("event") != "refund" || f.Get("refundId") != want.Data["refundId"] || f.Get("amount") != want.Data["amount"] ||
			f.Get("refundStatus") != "succeeded" || f.Get("paymentId") != id || !schema.VerifySign(params, shop.APIKey, f.Get("sign")) {
			t.Fatalf("refund webhook %v, want refund %v", f, want.Data)
		}
		h.verify(t, shop.WebhookSecret, "evt_refund_"+want.Data["refundId"].(string))
	}
	o := s.order(t, shop.AppID, shop.QueryKey, id)
	refunds, _ := o.Data["refunds"].([]any)
	if o.Data["refundedAmount"] != "50.50" || len(refunds) != 2 {
		t.Fatalf("action=order: %s", o.Raw)
	}
	eventually(t, 10*time.Second, func() bool {
		l := s.list(t, shop.AppID, shop.QueryKey, "")
		orders, _ := l.Data["orders"].([]any)
		return len(orders) == 1 && orders[0].(map[string]any)["refundedAmount"] == "50.50"
	})
}

// nextHook is the next webhook, failing the test after ten seconds.
func nextHook(t *testing.T, got chan hookRequest) hookRequest {
	t.Helper()
	select {
	case h := <-got:
		return h
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook within 10s")
	}
	return hookRequest{}
}
