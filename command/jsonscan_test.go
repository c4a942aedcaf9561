package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// referenceParams is the parser the scanner replaced, on encoding/json's
// token stream: the scanner must accept what it accepts and yield the same.
func referenceParams(body []byte) (schema.Params, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, platform.Errorf(platform.KindBadRequest, "request body must be a JSON object")
	}
	p := schema.Params{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, badJSON(err)
		}
		name, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return nil, badJSON(err)
		}
		if _, dup := p[name]; dup {
			return nil, platform.Errorf(platform.KindBadRequest, "parameter %s is given twice", name)
		}
		switch v := vt.(type) {
		case nil:
		case string:
			p[name] = v
		case json.Number:
			p[name] = v.String()
		case bool:
			p[name] = fmt.Sprint(v)
		default:
			return nil, platform.Errorf(platform.KindBadRequest, "parameter %s must be a string, number or boolean, not an object or array", name)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, badJSON(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, platform.Errorf(platform.KindBadRequest, "request body must hold one JSON object and nothing after it")
	}
	return p, nil
}

var scanSeeds = []string{
	`{"appid":"1001","clientip":"203.0.113.7","action":"createorder","amount":100,"currency":"CNY","paymentMethod":"wallet_a"}`,
	`{"amount":100.50,"description":"订单 #42 café","customerName":null}`,
	`{"return_url":"https://shop.example/done?id={paymentId}&x=1","flag":true,"off":false}`,
	` { "a" : -0.5e+10 , "b":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" } ` + "\n",
	`{"a":"\ud800"}`, `{"a":"\ud800\u0041"}`, `{"a":"\udc00\ud800"}`, `{"a":"\u00zz"}`, `{"a":"\x"}`,
	"{\"a\":\"\xff\xfe ok\"}", "{\"a\":\"tab\there\"}", `{"a":"unterminated}`,
	`{"a":{"b":1}}`, `{"a":[1]}`, `{"a":{`, `{"a":1,"a":2}`, `{"a":1,"a":null}`, `{"a":null,"a":1}`,
	`{"a":1,"a":{}}`, `{"a":1,"a":x}`, `{"a":1,"a":1x}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`,
	`{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{1:2}`, `{"a" 1}`, `{"a":1,}`, `{"a":1 "b":2}`, `{,}`,
	`[]`, `"x"`, `{`, `}`, `{}`, `{}{}`, `{} x`, `{} }`, "{}\x00", `{"a":1e400}`, `{"\u0000":"\ud800"}`, ``, ` `,
	"\xef\xbb\xbf{}",
}

// TestScannerMatchesReference runs the seeds through both parsers.
func TestScannerMatchesReference(t *testing.T) {
	for _, seed := range scanSeeds {
		t.Run(fmt.Sprintf("%q", seed), func(t *testing.T) { sameAsReference(t, []byte(seed)) })
	}
}

// FuzzScannerMatchesReference: on any body, the scanner and the token-stream
// parser agree on acceptance, on the parameters and on the error's kind.
func FuzzScannerMatchesReference(f *testing.F) {
	for _, seed := range scanSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(sameAsReference)
}

func sameAsReference(t *testing.T, body []byte) {
	t.Helper()
	got, err := ParseJSONParams(body)
	want, werr := referenceParams(body)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%q: scanner error %v, reference error %v", body, err, werr)
	}
	if err != nil {
		var ge, we *platform.Error
		if !errors.As(err, &ge) || !errors.As(werr, &we) || ge.Kind != we.Kind {
			t.Fatalf("%q: error kinds differ: %v / %v", body, err, werr)
		}
		return
	}
	if !maps.Equal(got, want) {
		t.Fatalf("%q: scanner %q, reference %q", body, got, want)
	}
}

func BenchmarkParseJSONParams(b *testing.B) {
	body := []byte(`{"appid":"1001","clientip":"203.0.113.7","action":"createorder","amount":100.50,"currency":"CNY",` +
		`"paymentMethod":"wallet_a","clientOrderId":"A-77-0001","notify_url":"https://shop.example/hook",` +
		`"return_url":"https://shop.example/done","description":"订单 #42","sign_type":"MD5","sign":"0123456789abcdef0123456789abcdef"}`)
	for _, c := range []struct {
		name  string
		parse func([]byte) (schema.Params, error)
	}{{"scanner", ParseJSONParams}, {"token_stream", referenceParams}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.parse(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
