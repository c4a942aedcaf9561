package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

// TestOpenAPIDescribesRealResponses validates answers of the running binary
// against the document the same binary serves at /openapi.json, so the
// document cannot drift from the API: a field added, renamed or retyped in a
// response, or an error kind or status the document does not name, fails here.
func TestOpenAPIDescribesRealResponses(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "success") }))
	t.Cleanup(hook.Close)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--callback", hook.URL, "--json")
	s := e.serve()
	v := s.openAPIValidator(t)
	// The epay door's document is served beside it, valid, naming this
	// gateway too (the door's tests validate its answers against it).
	s.openAPIValidatorAt(t, "/openapi-epay.json")
	// Money on the merchant's balances, posted as the ledger role would, so
	// /api/balance's items are validated, not only empty arrays.
	rdb := testenv.Client(t, e.redisURL)
	jr, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fixture.PostLedgerMix(t, jr, shop.AppID, time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3))
	journaltest.Check(t, rdb)
	api := func(method, path string, q url.Values, body any) *http.Request {
		t.Helper()
		var rd io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = bytes.NewReader(raw)
		}
		u := s.base + path
		if q != nil {
			u += "?" + q.Encode()
		}
		req, err := http.NewRequest(method, u, rd)
		if err != nil {
			t.Fatal(err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req
	}
	signed := func(p schema.Params, key string) schema.Params {
		p["sign"] = schema.Sign(p, key)
		return p
	}
	p := createParams(shop.AppID)
	p["clientOrderId"] = "OAS-1"
	created := validate(t, v, api(http.MethodPost, "/api/createorder", nil, signed(p, shop.APIKey)), 200)
	id, _ := created.Data["paymentId"].(string)
	if created.Data["amount"] != "100.50" {
		t.Fatalf("create amount: %+v", created)
	}
	paid := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay")
	if paid.Status != 200 {
		t.Fatalf("sandbox pay: %+v", paid)
	}
	query := func(action string, extra url.Values) url.Values {
		q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {action}}
		for k, vs := range extra {
			q[k] = vs
		}
		return q
	}
	// The webhook attempt and the listed order are what the documented
	// shapes hold; wait for both so their items are validated, not only
	// empty arrays.
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		r := call(t, api(http.MethodGet, "/api/order", query("webhooks", url.Values{"paymentId": {id}}), nil))
		attempts, _ := r.Data["attempts"].([]any)
		return len(attempts) > 0
	})
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		r := call(t, api(http.MethodGet, "/api/order", query("orders", nil), nil))
		orders, _ := r.Data["orders"].([]any)
		return len(orders) > 0
	})
	testenv.Eventually(t, 10*time.Second, "transactions projected", func() bool {
		r := call(t, api(http.MethodGet, "/api/balance", query("transactions", nil), nil))
		txs, _ := r.Data["transactions"].([]any)
		return len(txs) > 0
	})
	other := createParams(shop.AppID)
	other["paymentMethod"], other["currency"] = "cryptohost", "USD"
	crypto, _ := validate(t, v, api(http.MethodPost, "/api/createorder", nil, signed(other, shop.APIKey)), 200).Data["paymentId"].(string)
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, crypto, "pay"); r.Status != 200 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	ready, _ := validate(t, v, api(http.MethodPost, "/api/createorder", nil, signed(createParams(shop.AppID), shop.APIKey)), 200).Data["paymentId"].(string)
	after := func(action, order string, kv ...string) schema.Params {
		p := schema.Params{"appid": shop.AppID, "action": action, "paymentId": order}
		for i := 0; i+1 < len(kv); i += 2 {
			p[kv[i]] = kv[i+1]
		}
		return signed(p, shop.APIKey)
	}
	span := url.Values{"from": {time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, "to": {time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}
	with := func(base url.Values, kv ...string) url.Values {
		out := url.Values{}
		for k, vs := range base {
			out[k] = vs
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	missing := createParams(shop.AppID)
	delete(missing, "amount")
	badSign := createParams(shop.AppID)
	badSign["sign"] = strings.Repeat("0", 32)
	tests := []struct {
		name   string
		req    *http.Request
		status int
		kind   string
	}{
		{"create without amount", api(http.MethodPost, "/api/createorder", nil, signed(missing, shop.APIKey)), 400, "missing_parameter"},
		{"create with a wrong sign", api(http.MethodPost, "/api/createorder", nil, badSign), 401, "invalid_sign"},
		{"order", api(http.MethodGet, "/api/order", query("order", url.Values{"paymentId": {id}}), nil), 200, ""},
		{"listing", api(http.MethodGet, "/api/order", query("orders", url.Values{"limit": {"5"}}), nil), 200, ""},
		{"webhooks", api(http.MethodGet, "/api/order", query("webhooks", url.Values{"paymentId": {id}}), nil), 200, ""},
		{"unknown order", api(http.MethodGet, "/api/order", query("order", url.Values{"paymentId": {"0000000000000000000000"}}), nil), 404, "order_not_found"},
		{"wrong query key", api(http.MethodGet, "/api/order", url.Values{"appid": {shop.AppID}, "key": {"nope"}, "action": {"order"}, "paymentId": {id}}, nil), 401, "invalid_key"},
		{"known path, wrong method", api(http.MethodDelete, "/api/order", nil, nil), 405, "method_not_allowed"},
		{"the document, wrong method", api(http.MethodPost, "/openapi.json", nil, nil), 405, "method_not_allowed"},
		{"refund", api(http.MethodPost, "/api/order/refund", nil, after("refund", id, "amount", "30", "clientRefundId", "OAS-R1", "reason", "returned")), 200, ""},
		{"refund replayed by clientRefundId", api(http.MethodPost, "/api/order/refund", nil, after("refund", id, "amount", "30", "clientRefundId", "OAS-R1")), 200, ""},
		{"refund over what is left", api(http.MethodPost, "/api/order/refund", nil, after("refund", id, "amount", "70.51")), 409, "refund_exceeds_paid"},
		{"refund, provider without refunds", api(http.MethodPost, "/api/order/refund", nil, after("refund", crypto, "amount", "1")), 422, "refund_not_supported"},
		{"refund without amount", api(http.MethodPost, "/api/order/refund", nil, after("refund", id)), 400, "missing_parameter"},
		{"order with refunds", api(http.MethodGet, "/api/order", query("order", url.Values{"paymentId": {id}}), nil), 200, ""},
		{"cancel", api(http.MethodPost, "/api/order/cancel", nil, after("cancel", ready)), 200, ""},
		{"cancel a paid order", api(http.MethodPost, "/api/order/cancel", nil, after("cancel", id)), 409, "conflict"},
		{"resend", api(http.MethodPost, "/api/order/webhooks/resend", nil, after("resend", id)), 200, ""},
		{"listing by method and currency", api(http.MethodGet, "/api/order", query("orders", url.Values{"paymentMethod": {"wallet_a"}, "currency": {"CNY"}}), nil), 200, ""},
		{"summary", api(http.MethodGet, "/api/order", query("summary", span), nil), 200, ""},
		{"timeseries", api(http.MethodGet, "/api/order", query("timeseries", with(span, "interval", "hour", "groupBy", "paymentMethod", "tz", "Asia/Kolkata")), nil), 200, ""},
		{"export", api(http.MethodGet, "/api/order", query("export", with(span, "format", "csv")), nil), 200, ""},
		{"unknown parameter", api(http.MethodGet, "/api/order", query("summary", with(span, "groupBy", "status")), nil), 400, "invalid_parameter"},
		{"time past DateTime", api(http.MethodGet, "/api/order", query("orders", url.Values{"to": {"2200-01-01T00:00:00Z"}}), nil), 400, "invalid_parameter"},
		{"report without to", api(http.MethodGet, "/api/order", query("export", url.Values{"from": span["from"]}), nil), 400, "missing_parameter"},
		{"balance", api(http.MethodGet, "/api/balance", url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}}, nil), 200, ""},
		{"transactions", api(http.MethodGet, "/api/balance", query("transactions", url.Values{"limit": {"5"}, "type": {"payment,refund,settlement"}}), nil), 200, ""},
		{"balance with a wrong key", api(http.MethodGet, "/api/balance", url.Values{"appid": {shop.AppID}, "key": {"nope"}}, nil), 401, "invalid_key"},
		{"transactions with a made-up cursor", api(http.MethodGet, "/api/balance", query("transactions", url.Values{"cursor": {"eHl6"}}), nil), 400, "invalid_parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validate(t, v, tt.req, tt.status)
			if r.Error != tt.kind {
				t.Fatalf("error kind %q, want %q: %s", r.Error, tt.kind, r.Raw)
			}
		})
	}

	// The refund above ended at once, so its webhook is a delivery of its
	// own: once it has an attempt, action=webhooks (its item validated, not
	// an empty array) and resends with its refundId.
	var refundID string
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		r := call(t, api(http.MethodGet, "/api/order", query("webhooks", url.Values{"paymentId": {id}}), nil))
		refunds, _ := r.Data["refunds"].([]any)
		if len(refunds) != 1 {
			return false
		}
		rf, _ := refunds[0].(map[string]any)
		attempts, _ := rf["attempts"].([]any)
		refundID, _ = rf["refundId"].(string)
		return len(attempts) > 0
	})
	refundCases := []struct {
		name   string
		req    *http.Request
		status int
		kind   string
	}{
		{"webhooks with a refund", api(http.MethodGet, "/api/order", query("webhooks", url.Values{"paymentId": {id}}), nil), 200, ""},
		{"resend a refund's webhook", api(http.MethodPost, "/api/order/webhooks/resend", nil, after("resend", id, "refundId", refundID)), 200, ""},
		{"resend another order's refund", api(http.MethodPost, "/api/order/webhooks/resend", nil, after("resend", crypto, "refundId", refundID)), 404, "order_not_found"},
	}
	for _, tt := range refundCases {
		t.Run(tt.name, func(t *testing.T) {
			r := validate(t, v, tt.req, tt.status)
			if r.Error != tt.kind {
				t.Fatalf("error kind %q, want %q: %s", r.Error, tt.kind, r.Raw)
			}
		})
	}
}

// openAPIValidator reads the document the server serves and builds a
// validator from it with libopenapi (OpenAPI 3.1).
func (s *server) openAPIValidator(t *testing.T) validator.Validator {
	t.Helper()
	return s.openAPIValidatorAt(t, "/openapi.json")
}

// openAPIValidatorAt is openAPIValidator for the document served at path:
// /openapi-epay.json is the epay door's, which its tests validate its
// answers against.
func (s *server) openAPIValidatorAt(t *testing.T, path string) validator.Validator {
	t.Helper()
	res, err := http.Get(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	var servers struct{ Servers []struct{ URL string } }
	if err := json.Unmarshal(raw, &servers); err != nil || len(servers.Servers) != 1 || servers.Servers[0].URL != s.base {
		t.Fatalf("servers %+v (%v), want this gateway's public URL %s", servers.Servers, err, s.base)
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("parse the document: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("build the validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, ve := range verrs {
			t.Errorf("document: %s: %s", ve.Message, ve.Reason)
		}
		t.FailNow()
	}
	return v
}

// validate sends req, checks its status and validates the response against
// the document, returning it decoded.
func validate(t *testing.T, v validator.Validator, req *http.Request, status int) apiResponse {
	t.Helper()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var r apiResponse
	r.Status, r.Raw, r.Replayed = res.StatusCode, string(raw), res.Header.Get("Idempotent-Replayed") == "true"
	_ = json.Unmarshal(raw, &r)
	if res.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", req.Method, req.URL.Path, res.StatusCode, status, raw)
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	res.Body = io.NopCloser(bytes.NewReader(raw))
	lookup := req
	if status == http.StatusMethodNotAllowed {
		// The document lists the methods a path takes; a 405 is described
		// under each of them, so it is looked up under the one allowed.
		lookup = req.Clone(req.Context())
		lookup.Method = strings.TrimSpace(strings.Split(res.Header.Get("Allow"), ",")[0])
	}
	if ok, errs := v.ValidateHttpResponse(lookup, res); !ok {
		for _, ve := range errs {
			t.Errorf("%s %s %d does not match the document: %s: %s %v", req.Method, req.URL.Path, res.StatusCode, ve.Message, ve.Reason, ve.SchemaValidationErrors)
		}
		t.Fatalf("body: %s", raw)
	}
	return r
}
