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
		`{"action":"createorder","customerName":"Eve&paymentMethod=balance&zzz","paymentMethod":"wallet_a"}`,
		`{"customerName":"Eve","paymentMethod":"balance","zzz&paymentMethod":"wallet_a"}`,
		`{"customerName":"Eve","paymentMethod":"balance","return_url":"https://e.test/?&paymentMethod=wallet_a"}`,
		`{"description":"hi","notify_url":"https://e.test/?&notify_url=https://shop.test/h","paymentMethod":"x"}`,
		`{"amount":"5","notify_url":"https://shop.test/h?a=1&b=2&sign=z","return_url":"https://shop.test/r?id=1&x=y&z"}`,
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
		checkUniqueSplit(t, schema.CreateForm, p)
	})
}

// maxSplitAmps bounds the '&'s of a signed string whose every reading is
// enumerated (2^n of them at worst).
const maxSplitAmps = 14

// checkUniqueSplit holds a parameter set the form accepts to the two
// properties of schema.SignedForm: no other accepted set has its signed
// string, and a set of the form's names with any values (what a merchant
// may have signed with payer input in it) that has the same signed string
// is p with some values cut at '&': p keeps its every name, and its value
// of each is a prefix of that set's. Every reading of the string is
// enumerated, so the check does not lean on the argument it tests.
func checkUniqueSplit(t *testing.T, form schema.SignedForm, p schema.Params) {
	t.Helper()
	if form.Check(p) != nil {
		return
	}
	base := schema.SignBase(p)
	if strings.Count(base, "&") > maxSplitAmps {
		return
	}
	accepted := 0
	for _, x := range readings(base, form) {
		if form.Check(x) == nil {
			accepted++
			if schema.SignBase(x) != base || !sameSigned(x, p) {
				t.Fatalf("%q and %q share the signed string %q", x, p, base)
			}
			continue
		}
		for name, v := range x {
			if pv, ok := p[name]; !ok || !strings.HasPrefix(v, pv) {
				t.Fatalf("accepted %q changes %s of %q, which has the same signed string %q", p, name, x, base)
			}
		}
	}
	if accepted != 1 {
		t.Fatalf("%q: %d accepted readings of %q, want 1", p, accepted, base)
	}
}

// sameSigned compares two sets on what is signed.
func sameSigned(a, b schema.Params) bool {
	n := 0
	for k, v := range a {
		if k == "sign" || k == "sign_type" {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
		n++
	}
	for k := range b {
		if k != "sign" && k != "sign_type" {
			n--
		}
	}
	return n == 0
}

// readings are all the parameter sets whose names the form accepts (sign
// and sign_type aside), with any values, whose signed string is base.
func readings(base string, form schema.SignedForm) []schema.Params {
	if base == "" {
		return []schema.Params{{}}
	}
	var out []schema.Params
	cur := schema.Params{}
	var walk func(i int, prev string)
	walk = func(i int, prev string) {
		eq := strings.IndexByte(base[i:], '=')
		if eq < 0 {
			return
		}
		name := base[i : i+eq]
		if name <= prev || name == "sign" || name == "sign_type" || !form.Accepts(name) {
			return
		}
		start := i + eq + 1
		for end := start; ; end++ {
			if end < len(base) && base[end] != '&' {
				continue
			}
			cur[name] = base[start:end]
			if end == len(base) {
				x := make(schema.Params, len(cur))
				for k, v := range cur {
					x[k] = v
				}
				out = append(out, x)
			} else {
				walk(end+1, name)
			}
			delete(cur, name)
			if end == len(base) {
				return
			}
		}
	}
	walk(0, "")
	return out
}
