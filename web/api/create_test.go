package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

// The create's answers as merchants read them: the body's parsing, the
// answer's shape for every method, and the GET form's redirect and pages.

func TestCreateBodyParsing(t *testing.T) {
	h := newRedisHarness(t)
	good := signed(h.baseParams(), h.acct.APIKey)
	goodJSON, _ := json.Marshal(good)
	numeric := h.baseParams()
	numeric["amount"] = "100.50"
	numeric = signed(numeric, h.acct.APIKey)
	numericBody := strings.Replace(mustJSON(t, numeric), `"amount":"100.50"`, `"amount":100.50`, 1)
	tests := []struct {
		name   string
		body   string
		status int
		kind   string
	}{
		{"valid", string(goodJSON), 200, ""},
		{"number amount signed as written", numericBody, 200, ""},
		{"not JSON", "{", 400, "invalid_request"},
		{"array", "[]", 400, "invalid_request"},
		{"empty", "", 400, "invalid_request"},
		{"nested object", `{"appid":{"a":1}}`, 400, "invalid_request"},
		{"nested array", `{"appid":["1"]}`, 400, "invalid_request"},
		{"duplicate name", `{"appid":"1","appid":"2"}`, 400, "invalid_request"},
		{"trailing data", string(goodJSON) + "{}", 400, "invalid_request"},
		{"null is absent", strings.Replace(string(goodJSON), "{", `{"description":null,`, 1), 200, ""},
		{"too large", `{"description":"` + strings.Repeat("x", 70<<10) + `"}`, 413, "request_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.postJSON(tt.body)
			if r.Status != tt.status || r.Body.Error != tt.kind {
				t.Fatalf("got %d %.300s, want %d %s", r.Status, r.Raw, tt.status, tt.kind)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCreateResponseByMethod(t *testing.T) {
	h := newRedisHarness(t)
	if _, err := journaltest.Credit(context.Background(), h.rdb, h.acct.AppID, "USD", 1_000_00); err != nil {
		t.Fatal(err)
	}
	page := func(id string) string { return testBase + "/payment/" + id }
	checkout := func(id string) string { return testBase + "/fake-provider/checkout/" + id }
	tests := []struct {
		method, currency string
		extra            []string
		status           float64
		redirect         func(id string) string // nil: null
		sel              func(id string) string // nil: absent
		next             string
		qr               bool
		payable          bool
		balance          bool
	}{
		{"wallet_a", "CNY", nil, 1, page, nil, "", true, false, false},
		{"wallet_b", "USD", nil, 1, page, nil, "", true, false, false},
		{"cryptohost", "USD", nil, 1, checkout, nil, "", false, false, false},
		{"bdcard", "BDT", nil, 1, checkout, nil, "", false, false, false},
		{"bdpsp_a", "USD", nil, 1, checkout, nil, "", false, false, false},
		{"bdpsp_b", "BDT", nil, 1, checkout, nil, "", false, false, false},
		{"fiatpsp", "RUB", nil, 1, func(id string) string { return page(id) + "?step=fiatpsp_select" },
			func(id string) string { return page(id) + "?step=fiatpsp_select" }, "fiatpsp_select", false, false, false},
		{"fiatpsp", "EUR", []string{"fiatpspSystemId", "12"}, 1, checkout, nil, "", false, false, false},
		{"cryptopsp", "GBP", nil, 1, func(id string) string { return page(id) + "?step=cryptopsp_select" },
			func(id string) string { return page(id) + "?step=cryptopsp_select" }, "cryptopsp_select", false, false, false},
		{"usdt_direct", "CNY", nil, 1, func(id string) string { return page(id) + "/usdt-direct" },
			func(id string) string { return page(id) + "/usdt-direct" }, "usdt_direct_pay", false, true, false},
		{"select", "NZD", nil, 1, func(id string) string { return page(id) + "?step=select" },
			func(id string) string { return page(id) + "?step=select" }, "payment_method_select", false, false, false},
		{"select", "USD", []string{"lang", "es"}, 1, func(id string) string { return testBase + "/es/payment/" + id + "?step=select" },
			func(id string) string { return testBase + "/es/payment/" + id + "?step=select" }, "payment_method_select", false, false, false},
		{"balance", "USD", nil, 2, nil, nil, "", false, false, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.method, "/", tt.currency, tt.extra), func(t *testing.T) {
			p := h.baseParams()
			p["paymentMethod"], p["currency"] = tt.method, tt.currency
			for i := 0; i < len(tt.extra); i += 2 {
				p[tt.extra[i]] = tt.extra[i+1]
			}
			d := h.createOK(p)
			id, _ := d["paymentId"].(string)
			if _, ok := schema.ParseOrderID(id); !ok || d["orderId"] != id {
				t.Fatalf("ids: %v", d)
			}
			if d["status"] != tt.status || d["statusString"] != schema.Status(tt.status).String() {
				t.Errorf("status %v %v, want %v", d["status"], d["statusString"], tt.status)
			}
			wantURL(t, d, "redirectUrl", tt.redirect, id, true)
			wantURL(t, d, "selectUrl", tt.sel, id, false)
			if got, _ := d["nextAction"].(string); got != tt.next {
				t.Errorf("nextAction %q, want %q", got, tt.next)
			}
			if qr, _ := d["qrImageUrl"].(string); (qr != "") != tt.qr || (tt.qr && qr != page(id)+"/qr.png") {
				t.Errorf("qrImageUrl %v, want one: %v", d["qrImageUrl"], tt.qr)
			}
			if _, ok := d["qrImageUrl"]; !ok {
				t.Error("qrImageUrl must be present (null when not applicable)")
			}
			if pa, _ := d["payableAmount"].(string); (pa != "") != tt.payable {
				t.Errorf("payableAmount %q, want one: %v", pa, tt.payable)
			}
			if d["paidWithBalance"] != tt.balance || d["idempotent"] != false {
				t.Errorf("paidWithBalance %v idempotent %v", d["paidWithBalance"], d["idempotent"])
			}
		})
	}
}

func wantURL(t *testing.T, d map[string]any, name string, want func(string) string, id string, nullable bool) {
	t.Helper()
	v, present := d[name]
	if want == nil {
		if (nullable && (!present || v != nil)) || (!nullable && present) {
			t.Errorf("%s = %v, want %s", name, v, map[bool]string{true: "null", false: "absent"}[nullable])
		}
		return
	}
	if v != want(id) {
		t.Errorf("%s = %v, want %s", name, v, want(id))
	}
}

func TestCreateGet(t *testing.T) {
	h := newRedisHarness(t)
	q := url.Values{}
	for k, v := range signed(h.baseParams(), h.acct.APIKey) {
		q.Set(k, v)
	}
	r := h.get("/api/createorder", q)
	if r.Status != 302 || !strings.HasPrefix(r.Header.Get("Location"), testBase+"/payment/P") {
		t.Fatalf("valid GET: %d %v", r.Status, r.Header)
	}
	q.Set("amount", "5")
	r = h.get("/api/createorder", q)
	if r.Status != 401 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(r.Raw, "invalid_sign") {
		t.Fatalf("bad GET: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Raw)
	}
	q.Set("clientip", "203.0.113.1")
	q.Set("sign", schema.Sign(paramsOf(q), h.acct.APIKey))
	r = h.get("/api/createorder", q)
	if r.Status != 403 || !strings.Contains(r.Raw, "Request IP does not match clientip") {
		t.Fatalf("clientip GET: %d %s", r.Status, r.Raw)
	}
	r = h.get("/api/createorder", url.Values{})
	if r.Status != 400 || !strings.Contains(r.Raw, "appid") {
		t.Fatalf("empty GET: %d %s", r.Status, r.Raw)
	}
}

func paramsOf(q url.Values) schema.Params {
	p := schema.Params{}
	for k := range q {
		if k != "sign" {
			p[k] = q.Get(k)
		}
	}
	return p
}
