package dispatcher

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// webhookVector is the "paid-order webhook" vector of the shared signature
// vectors (schema/testdata keeps the copy the schema tests check).
func webhookVector(t *testing.T) (params map[string]string, key, base, sign string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "sign-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Vectors []struct {
			Name   string            `json:"name"`
			Params map[string]string `json:"params"`
			Key    string            `json:"key"`
			Base   string            `json:"base"`
			Sign   string            `json:"sign"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, v := range doc.Vectors {
		if v.Name == "paid-order webhook" {
			return v.Params, v.Key, v.Base, v.Sign
		}
	}
	t.Fatal("no paid-order webhook vector")
	return nil, "", "", ""
}

func TestCallbackMatchesSignVector(t *testing.T) {
	want, key, base, sign := webhookVector(t)
	o := &schema.Order{
		ID: "P20261121223320ab12cd", Amount: 100_00, Currency: "CNY", Method: schema.MethodWalletA,
		Status: schema.StatusPaid, ClientOrderID: "A-77",
		CreatedAt:   time.Date(2026, 11, 21, 22, 33, 20, 0, time.UTC),
		CompletedAt: time.Date(2026, 11, 21, 22, 35, 1, 0, time.UTC),
	}
	p := callbackParams(o)
	if got := schema.SignBase(p); got != base {
		t.Fatalf("base\n got %s\nwant %s", got, base)
	}
	body, err := signForm(encodeCallback(p), key)
	if err != nil {
		t.Fatal(err)
	}
	form, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	if form.Get("sign") != sign || form.Get("sign_type") != want["sign_type"] {
		t.Fatalf("sign %s sign_type %s, want %s %s", form.Get("sign"), form.Get("sign_type"), sign, want["sign_type"])
	}
	for k, v := range want {
		if form.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, form.Get(k), v)
		}
	}
	if len(form) != len(want)+1 { // + sign
		t.Errorf("form has %d fields, want %d: %v", len(form), len(want)+1, form)
	}
}

func TestCallbackParams(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	base := schema.Order{ID: "P1", Amount: 5, Currency: "USD", Method: schema.MethodBDCard, CreatedAt: at, CompletedAt: at.Add(time.Second)}
	tests := []struct {
		name   string
		change func(*schema.Order)
		want   map[string]string // "" means absent
	}{
		{"plain", func(*schema.Order) {}, map[string]string{"amount": "0.05", "paymentMethod": "bdcard",
			"createdAt": "2026-01-02T03:04:05Z", "completedTime": "2026-01-02T03:04:06Z", "status": "2", "status_str": "paid",
			"description": "", "clientOrderId": ""}},
		{"cryptohost is crypto", func(o *schema.Order) { o.Method = schema.MethodCryptohost }, map[string]string{"paymentMethod": "crypto"}},
		{"optional fields when given", func(o *schema.Order) { o.Description, o.ClientOrderID = "订单 #42 café", "A-1" },
			map[string]string{"description": "订单 #42 café", "clientOrderId": "A-1"}},
		{"no internal fields", func(o *schema.Order) { o.CustomerEmail, o.ReturnURL = "a@b.c", "https://x" },
			map[string]string{"customerEmail": "", "return_url": "", "appid": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.change(&o)
			p := callbackParams(&o)
			for k, v := range tt.want {
				got, ok := p[k]
				if v == "" && ok {
					t.Errorf("%s = %q, want it left out", k, got)
				}
				if v != "" && got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestAcknowledged(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   bool
	}{
		{200, "success", true},
		{200, "SUCCESS", true},
		{200, " success\n", true},
		{200, "\t\r\nSuccess \r\n", true},
		{201, "success", true},
		{299, "success", true},
		{200, "ok", false},
		{200, `{"result":"success"}`, false},
		{200, "success!", false},
		{200, "succ ess", false},
		{200, "\u00a0success", false}, // not ASCII white space
		{200, "", false},
		{500, "success", false},
		{302, "success", false},
		{199, "success", false},
	}
	for _, tt := range tests {
		if got := acknowledged(tt.status, []byte(tt.body)); got != tt.want {
			t.Errorf("acknowledged(%d, %q) = %v, want %v", tt.status, tt.body, got, tt.want)
		}
	}
}

func TestKeptBody(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	got := keptBody([]byte(long))
	if len(got) > schema.WebhookBodyKept+2 || !strings.HasPrefix(long, strings.TrimSuffix(got, "\uFFFD")) {
		t.Fatalf("keptBody kept %d bytes: %q", len(got), got)
	}
	if keptBody([]byte("success")) != "success" {
		t.Fatal("short body changed")
	}
}

// TestSignFormMatchesSign: a body signed from the stored form carries
// exactly the parameters and schema.Sign's signature, whatever characters
// the values hold; deliveries stored as JSON by earlier builds sign the same.
func TestSignFormMatchesSign(t *testing.T) {
	const key = "k3y"
	cases := []struct {
		name string
		p    schema.Params
	}{
		{"plain", schema.Params{"paymentId": "P1", "amount": "10.00", "status": "2"}},
		{"reserved characters", schema.Params{"description": "a&b=c d+e%f?g#h/i", "clientOrderId": "x=y&z"}},
		{"unicode and empty", schema.Params{"description": "café ✓ 支付", "note": ""}},
		{"keys needing escapes", schema.Params{"a b": "1", "a+b": "2", "a&b": "3", "A": "4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stored := encodeCallback(c.p)
			legacy, err := json.Marshal(c.p)
			if err != nil {
				t.Fatal(err)
			}
			for what, s := range map[string]string{"form": stored, "legacy JSON": string(legacy)} {
				form, err := storedForm(s)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				body, err := signForm(form, key)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got, err := url.ParseQuery(body)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if got.Get("sign") != schema.Sign(c.p, key) || got.Get("sign_type") != "MD5" {
					t.Errorf("%s: sign %s, want %s", what, got.Get("sign"), schema.Sign(c.p, key))
				}
				for k, v := range c.p {
					if vs := got[k]; len(vs) != 1 || vs[0] != v {
						t.Errorf("%s: %q = %q, want %q", what, k, vs, v)
					}
				}
				if len(got) != len(c.p)+2 {
					t.Errorf("%s: %d fields, want %d", what, len(got), len(c.p)+2)
				}
			}
		})
	}
	if _, err := signForm("a=%zz", key); err == nil {
		t.Error("a malformed stored form was signed")
	}
	if _, err := storedForm("{not json"); err == nil {
		t.Error("malformed stored JSON was read")
	}
}
