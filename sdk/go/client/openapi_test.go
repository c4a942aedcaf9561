package client

import (
	"encoding/json"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// openAPI is as much of the gateway's OpenAPI document as the check reads.
type openAPI struct {
	Paths      map[string]map[string]operation `json:"paths"`
	Webhooks   map[string]map[string]operation `json:"webhooks"`
	Components struct {
		Schemas map[string]*schema `json:"schemas"`
	} `json:"components"`
}

type operation struct {
	Parameters  []struct{ Name, In string } `json:"parameters"`
	RequestBody struct {
		Content map[string]struct{ Schema *schema } `json:"content"`
	} `json:"requestBody"`
}

type schema struct {
	Ref        string                     `json:"$ref"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
	AllOf      []*schema                  `json:"allOf"`
	Enum       []any                      `json:"enum"`
}

func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	raw, err := os.ReadFile(sharedFile(t, "GATEWAY_SDK_OPENAPI", "web/api/apidoc/openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// resolve follows $ref and merges allOf: the properties and required names
// an object schema ends up with.
func (d *openAPI) resolve(t *testing.T, s *schema) (props, required []string) {
	t.Helper()
	if s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, "#/components/schemas/")
		target, ok := d.Components.Schemas[name]
		if !ok {
			t.Fatalf("no schema %s", s.Ref)
		}
		return d.resolve(t, target)
	}
	for name := range s.Properties {
		props = append(props, name)
	}
	required = append(required, s.Required...)
	for _, part := range s.AllOf {
		p, r := d.resolve(t, part)
		props, required = append(props, p...), append(required, r...)
	}
	if len(props) == 0 {
		t.Fatal("a schema without properties")
	}
	return props, required
}

func (d *openAPI) named(t *testing.T, name string) (props, required []string) {
	t.Helper()
	return d.resolve(t, &schema{Ref: "#/components/schemas/" + name})
}

// tags are the names a struct type reads and writes under tag (embedded
// structs flattened; fields without the tag, like Callback.Params, skipped).
func tags(typ reflect.Type, tag string) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			out = append(out, tags(f.Type, tag)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// sameNames fails unless the type has every property of the schema and
// none it lacks: the SDK reads every field the gateway documents, and
// nothing it does not.
func sameNames(t *testing.T, what string, got, props []string) {
	t.Helper()
	for _, n := range got {
		if !slices.Contains(props, n) {
			t.Errorf("%s: the SDK's %q is not in the document", what, n)
		}
	}
	for _, n := range props {
		if !slices.Contains(got, n) {
			t.Errorf("%s: the document's %q is missing in the SDK", what, n)
		}
	}
}

// TestTypesMatchOpenAPI holds every answer type of the SDK to its schema.
func TestTypesMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	for _, tc := range []struct {
		schema string
		typ    any
	}{
		{"Order", Order{}}, {"CreateOrderData", Created{}}, {"OrderPage", OrderPage{}}, {"Refund", Refund{}},
		{"RefundData", Refunded{}}, {"Balance", Balance{}}, {"USDTReview", USDTReview{}}, {"Error", errorBody{}},
		{"EventRefundData", RefundEventData{}}, {"Transaction", Transaction{}}, {"TransactionPage", TransactionPage{}},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			props, _ := doc.named(t, tc.schema)
			sameNames(t, tc.schema, tags(reflect.TypeOf(tc.typ), "json"), props)
		})
	}
	t.Run("event envelope", func(t *testing.T) {
		for typ, ops := range doc.Webhooks {
			body, ok := ops["post"].RequestBody.Content["application/json"]
			if !ok {
				continue // SPEC.md's form webhooks: below
			}
			props, _ := doc.resolve(t, body.Schema)
			sameNames(t, typ, tags(reflect.TypeOf(Event{}), "json"), props)
		}
	})
	t.Run("paid and refund webhook forms", func(t *testing.T) {
		paid, _ := doc.named(t, "PaidWebhook")
		refund, _ := doc.named(t, "RefundWebhook")
		var both []string
		for _, n := range append(paid, refund...) {
			if n != "sign" && n != "sign_type" && !slices.Contains(both, n) {
				both = append(both, n)
			}
		}
		sameNames(t, "webhook form", tags(reflect.TypeOf(Callback{}), "form"), both)
	})
}

// TestRequestsMatchOpenAPI holds what the SDK sends to the document: every
// parameter a documented one, every required one sent, every path and
// method documented.
func TestRequestsMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	c := testClient(t, "https://pay.example", nil)
	full := CreateRequest{Amount: "1.00", Currency: "USD", PaymentMethod: "select", ClientOrderID: "A-1", ClientIP: "198.51.100.9",
		Description: "d", CustomerName: "n", CustomerEmail: "e@example.com", CustomerPhone: "1", NotifyURL: "https://s/h",
		ReturnURL: "https://s/r", Lang: "en", AllowedPaymentMethods: []string{"wallet_a"}, FiatpspSystemID: "7"}
	created, err := c.signed(full, "203.0.113.7")
	if err != nil {
		t.Fatal(err)
	}
	refund := RefundRequest{PaymentID: "p1", Amount: "1.00", Reason: "r", ClientRefundID: "R-1"}
	for _, tc := range []struct {
		schema string
		sent   map[string]string
	}{
		{"CreateOrderRequest", created},
		{"CancelRequest", c.signedParams("cancel", map[string]string{"paymentId": "p1"})},
		{"RefundRequest", c.signedParams("refund", refund.params())},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			props, required := doc.named(t, tc.schema)
			subset(t, tc.schema, keys(tc.sent), props, required)
		})
	}
	list := ListParams{Page: 2, Limit: 5, Status: "paid", ClientOrderID: "A-1", PaymentMethod: "wallet_a",
		Currency: "USD", From: time.Unix(0, 0), To: time.Now()}.query()
	for _, tc := range []struct {
		method, path string
		query        url.Values
	}{
		{"get", "/api/order", list},
		{"get", "/api/order", url.Values{"action": {"order"}, "paymentId": {"p1"}}},
		{"get", "/api/balance", url.Values{}},
		{"get", "/api/balance", TransactionParams{Cursor: "c", Limit: 5, Types: []string{"payment", "refund"},
			From: time.Unix(0, 0), To: time.Now()}.query()},
		{"get", "/api/createorder", nil},
		{"post", "/api/createorder", nil},
		{"post", "/api/order/cancel", nil},
		{"post", "/api/order/refund", nil},
	} {
		op, ok := doc.Paths[tc.path][tc.method]
		if !ok {
			t.Errorf("%s %s is not in the document", tc.method, tc.path)
			continue
		}
		if tc.query == nil {
			continue // a POST's body: checked above
		}
		var params []string
		for _, p := range op.Parameters {
			params = append(params, p.Name)
		}
		tc.query.Set("appid", "1001")
		tc.query.Set("key", "q")
		for name := range tc.query {
			if !slices.Contains(params, name) {
				t.Errorf("%s %s: the SDK sends %q, not a documented parameter", tc.method, tc.path, name)
			}
		}
	}
	hosted, err := c.HostedURL(full)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(hosted)
	for _, p := range doc.Paths["/api/createorder"]["get"].Parameters {
		if !u.Query().Has(p.Name) {
			t.Errorf("the hosted URL lacks the documented %q", p.Name)
		}
	}
}

// TestErrorKindsMatchOpenAPI: every kind the SDK names is one the gateway
// answers.
func TestErrorKindsMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	kinds := doc.Components.Schemas["ErrorKind"].Enum
	for _, k := range []string{KindInvalidRequest, KindMissingParameter, KindInvalidParameter, KindUnsupportedMethod,
		KindInvalidAppID, KindInvalidSign, KindInvalidKey, KindMerchantDisabled, KindClientIPMismatch, KindOrderNotFound,
		KindConflict, KindIdempotencyMismatch, KindIdempotencyInProgress, KindRefundExceedsPaid, KindRefundMismatch,
		KindRefundNotSupported, KindInsufficientBalance, KindRateLimited, KindInternal, KindProviderRefused, KindUnavailable} {
		if !slices.Contains(kinds, any(k)) {
			t.Errorf("kind %q is not in ErrorKind", k)
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func subset(t *testing.T, what string, sent, props, required []string) {
	t.Helper()
	for _, n := range sent {
		if !slices.Contains(props, n) {
			t.Errorf("%s: the SDK sends %q, not in the document", what, n)
		}
	}
	for _, n := range required {
		if !slices.Contains(sent, n) {
			t.Errorf("%s: the document requires %q, the SDK does not send it", what, n)
		}
	}
}
