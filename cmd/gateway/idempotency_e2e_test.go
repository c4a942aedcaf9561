package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// signedPost signs p with key and posts it to path, with an
// Idempotency-Key when idem is not empty.
func (s *server) signedPost(t *testing.T, path string, p schema.Params, key, idem string) apiResponse {
	t.Helper()
	p["sign"] = schema.Sign(p, key)
	body, _ := json.Marshal(p)
	req, _ := http.NewRequest(http.MethodPost, s.base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	return call(t, req)
}

// TestIdempotencyKeyAndCancelEndToEnd: through the binary, a retried
// balance create with its Idempotency-Key pays once, a key reused with other
// parameters is refused, and POST /api/order/cancel cancels, replays with
// its key and refuses a paid order without one.
func TestIdempotencyKeyAndCancelEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(nil, "merchant", "credit", shop.AppID, "--currency", "USD", "--amount", "50.00", "--json")
	s := e.serve()

	bp := createParams(shop.AppID)
	bp["paymentMethod"], bp["currency"], bp["amount"] = "balance", "USD", "20"
	first := s.signedPost(t, "/api/createorder", bp, shop.APIKey, "pay-1")
	again := s.signedPost(t, "/api/createorder", bp, shop.APIKey, "pay-1")
	if first.Status != 200 || again.Raw != first.Raw {
		t.Fatalf("retry with the key: %s\nfirst: %s", again.Raw, first.Raw)
	}
	// Paid once: 30.00 are left, so one more 20.00 passes and the next does not.
	if r := s.signedPost(t, "/api/createorder", bp, shop.APIKey, ""); r.Status != 200 {
		t.Fatalf("second payment: %+v", r)
	}
	if r := s.signedPost(t, "/api/createorder", bp, shop.APIKey, ""); r.Status != 422 || r.Error != "insufficient_balance" {
		t.Fatalf("third payment: %+v", r)
	}
	bp["amount"] = "1"
	if r := s.signedPost(t, "/api/createorder", bp, shop.APIKey, "pay-1"); r.Status != 409 || r.Error != "idempotency_mismatch" {
		t.Fatalf("the key with other parameters: %+v", r)
	}

	id := s.create(t, createParams(shop.AppID), shop.APIKey).Data["paymentId"].(string)
	cancel := schema.Params{"appid": shop.AppID, "action": "cancel", "paymentId": id}
	if r := s.signedPost(t, "/api/order/cancel", schema.Params{"appid": shop.AppID, "action": "cancel", "paymentId": id}, "wrong", ""); r.Status != 401 {
		t.Fatalf("bad sign: %+v", r)
	}
	c1 := s.signedPost(t, "/api/order/cancel", cancel, shop.APIKey, "cancel-1")
	if c1.Status != 200 || c1.Data["status_str"] != "cancelled" || c1.Data["paymentId"] != id {
		t.Fatalf("cancel: %+v", c1)
	}
	if q := s.order(t, shop.AppID, shop.QueryKey, id); q.Data["status_str"] != "cancelled" {
		t.Fatalf("query after cancel: %+v", q)
	}
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("late payment: %+v", r)
	}
	if r := s.signedPost(t, "/api/order/cancel", cancel, shop.APIKey, ""); r.Status != 409 || r.Error != "conflict" {
		t.Fatalf("cancel a paid order: %+v", r)
	}
	if r := s.signedPost(t, "/api/order/cancel", cancel, shop.APIKey, "cancel-1"); r.Raw != c1.Raw {
		t.Fatalf("cancel retried with its key: %s\nfirst: %s", r.Raw, c1.Raw)
	}

	// Cancels spend the merchant's create limit.
	e.cli(nil, "merchant", "limits", shop.AppID, "--create", "1/h:1", "--json")
	testenv.Eventually(t, 5*time.Second, "condition", func() bool {
		r := s.signedPost(t, "/api/order/cancel", cancel, shop.APIKey, "")
		return r.Status == 429 && r.Error == "rate_limited"
	})
}
