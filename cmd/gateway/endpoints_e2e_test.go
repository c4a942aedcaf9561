package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestWebhookEndpointsAPI: the running binary's webhook endpoints API
// answers as the document it serves describes: the secret only in a
// create's and a rotation's answer, another merchant's endpoint 404 on
// every call, a captured change refused, the 11th endpoint refused, a
// replay before the endpoint existed refused.
func TestWebhookEndpointsAPI(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop, other account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "other", "--sandbox", "--json")
	s := e.serve()
	v := s.openAPIValidator(t)
	seq := 0
	signed := func(acct account, at time.Time, p schema.Params) []byte {
		seq++
		p["appid"], p["requestId"], p["timestamp"] = acct.AppID, fmt.Sprintf("ep-%d", seq), strconv.FormatInt(at.Unix(), 10)
		p["sign"] = schema.Sign(p, acct.APIKey)
		raw, _ := json.Marshal(p)
		return raw
	}
	post := func(path string, raw []byte) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, s.base+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	change := func(path string, acct account, p schema.Params) *http.Request {
		return post(path, signed(acct, time.Now(), p))
	}
	get := func(path string, acct account, q url.Values) *http.Request {
		if q == nil {
			q = url.Values{}
		}
		q.Set("appid", acct.AppID)
		q.Set("key", acct.QueryKey)
		req, _ := http.NewRequest(http.MethodGet, s.base+path+"?"+q.Encode(), nil)
		return req
	}
	const hook = "https://93.184.216.34/hooks"
	created := validate(t, v, change("/api/webhook-endpoints", shop, schema.Params{"url": hook, "types": "order.expired,order.paid"}), 200)
	id, _ := created.Data["id"].(string)
	secret, _ := created.Data["secret"].(string)
	if id == "" || len(secret) < 10 {
		t.Fatalf("create answered %v", created.Data)
	}
	ep := "/api/webhook-endpoints/" + id
	captured := signed(shop, time.Now(), schema.Params{"url": hook + "/2"})
	validate(t, v, post("/api/webhook-endpoints", captured), 200)
	for name, req := range map[string]*http.Request{"list": get("/api/webhook-endpoints", shop, nil), "read": get(ep, shop, nil),
		"update": change(ep, shop, schema.Params{"description": "stock", "enabled": "false"})} {
		if r := validate(t, v, req, 200); bytes.Contains([]byte(r.Raw), []byte(secret)) || bytes.Contains([]byte(r.Raw), []byte(`"secret"`)) {
			t.Fatalf("%s answered the secret: %s", name, r.Raw)
		}
	}
	rotated := validate(t, v, change(ep+"/rotate", shop, schema.Params{"overlap": "1"}), 200)
	if ns, _ := rotated.Data["secret"].(string); ns == "" || ns == secret || rotated.Data["previousSecretValidUntil"] == nil {
		t.Fatalf("rotation answered %v", rotated.Data)
	}
	cases := []struct {
		name   string
		req    *http.Request
		status int
		kind   string
	}{
		{"a captured create sent again", post("/api/webhook-endpoints", captured), 409, "conflict"},
		{"signed six minutes ago", post("/api/webhook-endpoints", signed(shop, time.Now().Add(-6*time.Minute), schema.Params{"url": hook})), 400, "invalid_parameter"},
		{"without a requestId", post("/api/webhook-endpoints", unsignedID(t, shop, schema.Params{"url": hook})), 400, "missing_parameter"},
		{"an unknown type", change("/api/webhook-endpoints", shop, schema.Params{"url": hook, "types": "order.payed"}), 400, "invalid_parameter"},
		{"a replay since before the endpoint", change(ep+"/replay", shop, schema.Params{"since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}), 400, "invalid_parameter"},
		{"read another merchant's", get(ep, other, nil), 404, "order_not_found"},
		{"another merchant's deliveries", get(ep+"/deliveries", other, nil), 404, "order_not_found"},
		{"update another merchant's", change(ep, other, schema.Params{"enabled": "true"}), 404, "order_not_found"},
		{"rotate another merchant's", change(ep+"/rotate", other, schema.Params{}), 404, "order_not_found"},
		{"replay another merchant's", change(ep+"/replay", other, schema.Params{"since": time.Now().UTC().Format(time.RFC3339)}), 404, "order_not_found"},
		{"test another merchant's", change(ep+"/test", other, schema.Params{}), 404, "order_not_found"},
		{"delete another merchant's", change(ep+"/delete", other, schema.Params{}), 404, "order_not_found"},
		{"list with a wrong key", get("/api/webhook-endpoints", account{AppID: shop.AppID, QueryKey: "nope"}, nil), 401, "invalid_key"},
		{"the deliveries of a disabled endpoint", get(ep+"/deliveries", shop, nil), 200, ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if r := validate(t, v, tt.req, tt.status); r.Error != tt.kind {
				t.Fatalf("error kind %q, want %q: %s", r.Error, tt.kind, r.Raw)
			}
		})
	}
	t.Run("the 11th endpoint", func(t *testing.T) {
		for i := 3; i <= 10; i++ {
			validate(t, v, change("/api/webhook-endpoints", shop, schema.Params{"url": fmt.Sprintf("%s/%d", hook, i)}), 200)
		}
		if r := validate(t, v, change("/api/webhook-endpoints", shop, schema.Params{"url": hook + "/11"}), 409); r.Error != "conflict" {
			t.Fatalf("11th: %s", r.Raw)
		}
		validate(t, v, change(ep+"/delete", shop, schema.Params{}), 200)
		validate(t, v, change("/api/webhook-endpoints", shop, schema.Params{"url": hook + "/11"}), 200)
	})
}
