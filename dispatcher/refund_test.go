package dispatcher

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// publishRefund appends a refund event of o as command's refund scripts
// do: the order's fields and the refund record.
func (e *env) publishRefund(o *schema.Order, r *schema.Refund) {
	e.t.Helper()
	shard, _ := schema.ParseOrderID(o.ID)
	rec, err := json.Marshal(r)
	if err != nil {
		e.t.Fatal(err)
	}
	values := append(schema.EventFields(schema.EventRefund, o.UpdatedAt, o), schema.EvRefund, string(rec))
	if err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: values}).Err(); err != nil {
		e.t.Fatal(err)
	}
}

// TestRefundWebhook: a refund's pending event sends nothing; its end sends
// one webhook of its own, beside the paid one: SPEC.md's form signed with
// MD5, event=refund, the refund's fields, webhook-id evt_refund_<refund id>
// and a Standard Webhooks signature.
func TestRefundWebhook(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	e.start(testConfig())
	o := e.pay(rc.URL + "/hook")
	testenv.Eventually(t, 10*time.Second, "the paid webhook", func() bool { return rc.count() == 1 })
	now := time.Now().UnixMilli()
	r := &schema.Refund{ID: "rf_TEST1", OrderID: o.ID, ClientRefundID: "cr-1", Amount: 4_00, Currency: o.Currency,
		Reason: "damaged", Status: schema.RefundPending, Kind: schema.RefundKindProvider, CreatedMs: now, UpdatedMs: now}
	o.Version++
	e.publishRefund(o, r)
	done := *r
	done.Status, done.UpdatedMs = schema.RefundSucceeded, now+1000
	o.Version++
	o.Refunded = 4_00
	e.publishRefund(o, &done)
	testenv.Eventually(t, 10*time.Second, "the refund webhook", func() bool { return rc.count() == 2 })
	// A pending event scheduling a delivery would have taken the refund's
	// one delivery key, and its form would say pending.
	reqs := rc.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d webhooks, want the paid one and one refund", len(reqs))
	}
	got := reqs[1]
	want := map[string]string{"event": "refund", "paymentId": o.ID, "refundId": "rf_TEST1", "clientRefundId": "cr-1",
		"amount": "4.00", "currency": "USD", "refundStatus": "succeeded", "refundedAmount": "4.00", "reason": "damaged",
		"sign_type": "MD5"}
	for k, v := range want {
		if got.form.Get(k) != v {
			t.Errorf("%s = %q, want %q (body %s)", k, got.form.Get(k), v, got.body)
		}
	}
	p := schema.Params{}
	for k := range got.form {
		p[k] = got.form.Get(k)
	}
	if !schema.VerifySign(p, e.acct.APIKey, p["sign"]) {
		t.Error("the MD5 sign does not verify")
	}
	id := got.header.Get(HeaderID)
	if id != "evt_refund_rf_TEST1" || !verifyStandard(t, e.secretOf(), id, got.header.Get("webhook-timestamp"), got.body, got.header.Get("webhook-signature")) {
		t.Errorf("webhook-id %q, or its signature does not verify", id)
	}
	if ct := got.contentType; ct != "application/x-www-form-urlencoded" {
		t.Errorf("content type %q", ct)
	}
}
