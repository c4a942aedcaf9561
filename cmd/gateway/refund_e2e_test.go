package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
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
// webhook, MD5-signed with its Standard Webhooks headers. action=webhooks
// shows each refund's delivery, a resend with refundId sends that refund's
// webhook again, `gateway webhook log PAYMENTID REFUNDID` reads it, and a
// refundId that is not the order's is 404.
func TestRefundEndToEnd(t *testing.T) {
	e := newE2E(t)
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
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		l := s.list(t, shop.AppID, shop.QueryKey, "")
		orders, _ := l.Data["orders"].([]any)
		return len(orders) == 1 && orders[0].(map[string]any)["refundedAmount"] == "50.50"
	})

	// action=webhooks shows each refund's own delivery; a resend with
	// refundId sends that refund's webhook again, with its event id.
	firstID, secondID := first.Data["refundId"].(string), second.Data["refundId"].(string)
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		got := refundDeliveries(t, s, shop, id)
		return got[firstID] == "delivered/1" && got[secondID] == "delivered/1" && len(got) == 2
	})
	r := s.signedPost(t, "/api/order/webhooks/resend", schema.Params{"appid": shop.AppID, "action": "resend",
		"paymentId": id, "refundId": firstID}, shop.APIKey, "")
	if r.Status != 200 || r.Data["eventId"] != "evt_refund_"+firstID || r.Data["refundId"] != firstID {
		t.Fatalf("resend of a refund webhook: %s", r.Raw)
	}
	again := nextHook(t, got)
	if again.form.Get("refundId") != firstID || again.form.Get("event") != "refund" {
		t.Fatalf("resent webhook %v, want refund %s's", again.form, firstID)
	}
	again.verify(t, shop.WebhookSecret, "evt_refund_"+firstID)
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return refundDeliveries(t, s, shop, id)[firstID] == "delivered/2" })
	var report struct {
		Delivery struct {
			RefundID string `json:"refundId"`
			State    string `json:"state"`
		} `json:"delivery"`
		Attempts []schema.WebhookAttempt `json:"attempts"`
	}
	e.cli(&report, "webhook", "log", id, firstID, "--json")
	if report.Delivery.RefundID != firstID || len(report.Attempts) != 2 || !report.Attempts[1].Manual {
		t.Fatalf("gateway webhook log %s %s: %+v", id, firstID, report)
	}
	other := s.signedPost(t, "/api/order/webhooks/resend", schema.Params{"appid": shop.AppID, "action": "resend",
		"paymentId": id, "refundId": "rf_NOTTHISORDERS"}, shop.APIKey, "")
	if other.Status != 404 || other.Error != "order_not_found" {
		t.Fatalf("resend of an unknown refund: %s", other.Raw)
	}
}

// refundDeliveries reads action=webhooks of order id: each refund's
// delivery state and attempt count, as "state/attempts" by refund id.
func refundDeliveries(t *testing.T, s *server, shop account, id string) map[string]string {
	t.Helper()
	q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {"webhooks"}, "paymentId": {id}}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
	r := call(t, req)
	refunds, _ := r.Data["refunds"].([]any)
	out := map[string]string{}
	for _, x := range refunds {
		rf, _ := x.(map[string]any)
		st := "none"
		if d, ok := rf["delivery"].(map[string]any); ok {
			st, _ = d["state"].(string)
		}
		attempts, _ := rf["attempts"].([]any)
		id, _ := rf["refundId"].(string)
		out[id] = st + "/" + strconv.Itoa(len(attempts))
	}
	return out
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
