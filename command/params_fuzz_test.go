package command

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// FuzzParseJSONParams checks the body parser and the signature together on
// any input: the parser either refuses with a domain error or yields a flat
// set that survives a round trip, and a set signed with a key verifies with
// that key only.
func FuzzParseJSONParams(f *testing.F) {
	for _, seed := range []string{
		`{"appid":"1001","clientip":"203.0.113.7","action":"createorder","amount":100,"currency":"CNY","paymentMethod":"wallet_a"}`,
		`{"amount":100.50,"description":"订单 #42 café","customerName":null}`,
		`{"return_url":"https://shop.example/done?id={paymentId}&x=1","flag":true}`,
		`{"a":{"b":1}}`, `{"a":[1]}`, `{"a":1,"a":2}`, `[]`, `{`, `{}{}`, `{"a":1e400}`, `{"\u0000":"\ud800"}`, ``,
	} {
		f.Add([]byte(seed), "key")
	}
	f.Fuzz(func(t *testing.T, body []byte, key string) {
		p, err := ParseJSONParams(body)
		if err != nil {
			var de *platform.Error
			if !errors.As(err, &de) || platform.Status(de.Kind) >= 500 {
				t.Fatalf("parser error is not a client error: %v", err)
			}
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseJSONParams(again)
		if err != nil || len(back) != len(p) {
			t.Fatalf("round trip of %q: %v", again, err)
		}
		for k, v := range p {
			if back[k] != v && strings.ToValidUTF8(v, "\uFFFD") == v {
				t.Fatalf("round trip changed %q: %q -> %q", k, v, back[k])
			}
		}
		sign := schema.Sign(p, key)
		if !schema.VerifySign(p, key, sign) {
			t.Fatal("own signature refused")
		}
		if schema.VerifySign(p, key+"x", sign) {
			t.Fatal("signature verified with another key")
		}
		withSign := schema.Params{"sign": "x", "sign_type": "MD5"}
		for k, v := range p {
			withSign[k] = v
		}
		if _, has := p["sign"]; !has && schema.SignBase(withSign) != schema.SignBase(p) {
			t.Fatal("sign or sign_type leaked into the signed string")
		}
	})
}
