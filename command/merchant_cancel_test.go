package command

import (
	"context"
	"fmt"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestMerchantCancel: POST /api/order/cancel in createorder's check order,
// on the merchant's own live orders only.
func TestMerchantCancel(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	disabled, err := h.accounts.Create(ctx, newAccount("disabled shop", true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.accounts.SetDisabled(ctx, disabled.AppID, true); err != nil {
		t.Fatal(err)
	}
	other, err := h.accounts.Create(ctx, newAccount("other shop", true))
	if err != nil {
		t.Fatal(err)
	}
	created := func() string { return h.createOK(h.baseParams())["paymentId"].(string) }
	paid := created()
	sandboxMove(t, h, paid, "pay")
	cancelled := created()
	if _, err := h.uc.Cancel.Cancel(ctx, cancelled); err != nil {
		t.Fatal(err)
	}
	body := func(id string, kv ...string) schema.Params {
		p := schema.Params{"appid": h.acct.AppID, "action": "cancel", "paymentId": id}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(p, kv[i])
			} else {
				p[kv[i]] = kv[i+1]
			}
		}
		return p
	}
	tests := []struct {
		name   string
		id     string
		p      func(id string) schema.Params // signed with the sandbox shop's key unless it signs itself
		status int
		kind   string
		events string // the order's events after the call
	}{
		{"ready", created(), func(id string) schema.Params { return signed(body(id), h.acct.APIKey) }, 200, "", "[created ready cancelled]"},
		{"ready, clientip matches", created(), func(id string) schema.Params { return signed(body(id, "clientip", testIP), h.acct.APIKey) }, 200, "", "[created ready cancelled]"},
		{"cancelled again", cancelled, func(id string) schema.Params { return signed(body(id), h.acct.APIKey) }, 200, "", "[created ready cancelled]"},
		{"paid", paid, func(id string) schema.Params { return signed(body(id), h.acct.APIKey) }, 409, "conflict", "[created ready paid]"},
		{"another merchant's order", created(), func(id string) schema.Params {
			return signed(body(id, "appid", other.AppID), other.APIKey)
		}, 404, "order_not_found", "[created ready]"},
		{"no such order", "P-nothing", func(id string) schema.Params { return signed(body(id), h.acct.APIKey) }, 404, "order_not_found", "[]"},
		{"bad sign", created(), func(id string) schema.Params { return signed(body(id), "wrong") }, 401, "invalid_sign", "[created ready]"},
		{"unknown appid", created(), func(id string) schema.Params { return signed(body(id, "appid", "999999"), "x") }, 401, "invalid_appid", "[created ready]"},
		{"disabled", created(), func(id string) schema.Params {
			return signed(body(id, "appid", disabled.AppID), disabled.APIKey)
		}, 403, "merchant_disabled", "[created ready]"},
		{"missing paymentId", created(), func(string) schema.Params { return signed(body("", "paymentId", ""), h.acct.APIKey) }, 400, "missing_parameter", "[created ready]"},
		{"missing sign", created(), func(id string) schema.Params { return body(id) }, 400, "missing_parameter", "[created ready]"},
		{"wrong action", created(), func(id string) schema.Params { return signed(body(id, "action", "refund"), h.acct.APIKey) }, 400, "invalid_parameter", "[created ready]"},
		{"name outside the form", created(), func(id string) schema.Params { return signed(body(id, "status", "2"), h.acct.APIKey) }, 400, "invalid_parameter", "[created ready]"},
		{"& in a value", created(), func(id string) schema.Params { return signed(body(id, "clientip", testIP+"&x=1"), h.acct.APIKey) }, 400, "invalid_parameter", "[created ready]"},
		{"ext_ name signed and ignored", created(), func(id string) schema.Params { return signed(body(id, "ext_ref", "r1"), h.acct.APIKey) }, 200, "", "[created ready cancelled]"},
		{"clientip differs", created(), func(id string) schema.Params {
			return signed(body(id, "clientip", "203.0.113.9"), h.acct.APIKey)
		}, 403, "clientip_mismatch", "[created ready]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.postTo("/api/order/cancel", tt.p(tt.id))
			if r.Status != tt.status || r.Body.Error != tt.kind {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Raw, tt.status, tt.kind)
			}
			if tt.id != "P-nothing" {
				if types, _ := orderEvents(t, h, tt.id); fmt.Sprint(types) != tt.events {
					t.Fatalf("events %v, want %s", types, tt.events)
				}
			}
			if r.Status != 200 {
				return
			}
			if d := r.Data(t); d["paymentId"] != tt.id || d["status"] != float64(schema.StatusCancelled) || d["status_str"] != "cancelled" {
				t.Fatalf("data %v", d)
			}
		})
	}
}

// TestMerchantCancelIdempotencyKey: a cancel retried with its key answers
// as the first time, even once a late payment made the order paid.
func TestMerchantCancelIdempotencyKey(t *testing.T) {
	h := newRedisHarness(t)
	id := h.createOK(h.baseParams())["paymentId"].(string)
	p := signed(schema.Params{"appid": h.acct.AppID, "action": "cancel", "paymentId": id}, h.acct.APIKey)
	first := h.postTo("/api/order/cancel", p, HeaderIdempotencyKey, "cancel-1")
	if first.Status != 200 {
		t.Fatal(first.Raw)
	}
	sandboxMove(t, h, id, "pay") // a late payment still counts
	if r := h.postTo("/api/order/cancel", p); r.Status != 409 {
		t.Fatalf("without the key a paid order refuses: %d %s", r.Status, r.Raw)
	}
	again := h.postTo("/api/order/cancel", p, HeaderIdempotencyKey, "cancel-1")
	if again.Status != 200 || again.Raw != first.Raw || again.Header.Get(headerIdempotentReplayed) != "true" {
		t.Fatalf("replay %d %s\nfirst %s", again.Status, again.Raw, first.Raw)
	}
}
