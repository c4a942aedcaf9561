package api

import (
	"bytes"
	"context"
	"image/png"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

func TestSandboxPayAndFail(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	d := h.createOK(h.baseParams())
	id := d["paymentId"].(string)
	shard, _ := schema.ParseOrderID(id)
	auth := url.Values{"appid": {h.acct.AppID}, "key": {h.acct.QueryKey}}
	tests := []struct {
		name   string
		target string
		form   string
		status int
		kind   string
	}{
		{"no credentials", "/sandbox/orders/" + id + "/pay", "", 401, "invalid_key"},
		{"wrong key", "/sandbox/orders/" + id + "/pay?appid=" + h.acct.AppID + "&key=00000000-0000-4000-8000-000000000000", "", 401, "invalid_key"},
		{"unknown appid", "/sandbox/orders/" + id + "/pay?appid=424242&key=" + h.acct.QueryKey, "", 401, "invalid_appid"},
		{"live merchant", "/sandbox/orders/" + id + "/pay?appid=" + h.live.AppID + "&key=" + h.live.QueryKey, "", 403, "forbidden"},
		{"unknown order", "/sandbox/orders/P00000000000000000000000000000000000/pay?" + auth.Encode(), "", 404, "order_not_found"},
		{"pay by form", "/sandbox/orders/" + id + "/pay", auth.Encode(), 200, ""},
		{"pay again changes nothing", "/sandbox/orders/" + id + "/pay?" + auth.Encode(), "", 200, ""},
		{"fail a paid order", "/sandbox/orders/" + id + "/fail?" + auth.Encode(), "", 409, "conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(newPost(tt.target, tt.form))
			if r.Status != tt.status || r.Body.Error != tt.kind {
				t.Fatalf("got %d %s, want %d %s", r.Status, r.Raw, tt.status, tt.kind)
			}
		})
	}
	o, err := h.store.Get(ctx, id)
	if err != nil || o.Status != schema.StatusPaid || o.Version != 3 || o.CompletedAt.IsZero() {
		t.Fatalf("after pay: %+v %v", o, err)
	}
	msgs, _ := h.rdb.XRange(ctx, schema.EventsKey(shard), "-", "+").Result()
	if len(msgs) != 3 || msgs[1].Values["type"] != "ready" || msgs[2].Values["type"] != "paid" || msgs[2].Values["v"] != "3" {
		t.Fatalf("want created, ready, then one paid event, got %v", msgs)
	}
	ev, err := schema.DecodeEvent(msgs[2].ID, msgs[2].Values)
	if err != nil || ev.Order.Status != schema.StatusPaid || !ev.Order.CompletedAt.Equal(o.CompletedAt) {
		t.Fatalf("paid event snapshot: %+v %v", ev, err)
	}

	// Another merchant cannot drive this order.
	other, _ := h.accounts.Create(ctx, newAccount("other", true))
	d2 := h.createOK(h.baseParams())
	q := url.Values{"appid": {other.AppID}, "key": {other.QueryKey}}
	if r := h.do(newPost("/sandbox/orders/"+d2["paymentId"].(string)+"/fail?"+q.Encode(), "")); r.Status != 404 {
		t.Fatalf("other merchant's order: %s", r.Raw)
	}
	r := sandboxMove(t, h, d2["paymentId"].(string), "fail")
	if d := r.Data(t); d["status"] != 3.0 || d["status_str"] != "failed" || d["changed"] != true {
		t.Fatalf("fail: %v", d)
	}
	// A late payment after failure still counts (DESIGN.md).
	if d := sandboxMove(t, h, d2["paymentId"].(string), "pay").Data(t); d["status"] != 2.0 {
		t.Fatalf("late pay: %v", d)
	}
}

// TestNoSandboxCheckoutPage: the vestigial /sandbox/checkout page (a form
// with no CSRF token, in any frame) is gone, so a cross-site POST there
// moves nothing (a security review finding; the simulated providers' pages
// are the sandbox's checkout).
func TestNoSandboxCheckoutPage(t *testing.T) {
	h := newRedisHarness(t)
	p := h.baseParams()
	p["paymentMethod"], p["currency"] = "cryptohost", "USD"
	id := h.createOK(p)["paymentId"].(string)
	for _, outcome := range []string{"fail", "pay"} {
		req := newPost("/sandbox/checkout/"+id, "outcome="+outcome)
		req.Header.Set("Origin", "https://attacker.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if r := h.do(req); r.Status != 404 {
			t.Errorf("cross-site POST outcome=%s: %d, want 404", outcome, r.Status)
		}
	}
	if o, _ := h.store.Get(context.Background(), id); o.Status != schema.StatusReady {
		t.Fatalf("order after the cross-site POSTs: %v, want ready", o.Status)
	}
}

func TestQRImage(t *testing.T) {
	h := newRedisHarness(t)
	d := h.createOK(h.baseParams())
	qrURL := d["qrImageUrl"].(string)
	r := h.do(newGet(strings.TrimPrefix(qrURL, testBase)))
	if r.Status != 200 || r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("qr: %d %v", r.Status, r.Header)
	}
	img, err := png.Decode(bytes.NewReader([]byte(r.Raw)))
	if err != nil || img.Bounds().Dx() < 200 {
		t.Fatalf("qr png: %v %v", err, img)
	}
	p := h.baseParams()
	p["paymentMethod"], p["currency"] = "cryptohost", "USD"
	other := h.createOK(p)["paymentId"].(string)
	for _, path := range []string{"/payment/" + other + "/qr.png", "/payment/nope/qr.png"} {
		if r := h.do(newGet(path)); r.Status != 404 || r.Body.Error != "order_not_found" {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
	}
}
