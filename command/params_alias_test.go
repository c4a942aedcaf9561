package command

import (
	"bytes"
	"maps"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/schema"
)

// TestParsedParamsOwnTheirMemory: the parameters parsed from a body or a
// query string are copies. fasthttp reuses a request's buffers once its
// handler returns, and a create's values go on to the batcher, the metrics
// and the order, so a parameter that aliased the body would change under
// them. Each case overwrites the input after parsing.
func TestParsedParamsOwnTheirMemory(t *testing.T) {
	body := []byte(`{"appid":"A1","amount":100.50,"description":"plain ascii","customerName":"\u4e2d\u6587 esc\"aped",` +
		`"notify_url":"https://shop.test/h?x=1","flag":true,"sign":"abc"}`)
	want := schema.Params{"appid": "A1", "amount": "100.50", "description": "plain ascii", "customerName": "中文 esc\"aped",
		"notify_url": "https://shop.test/h?x=1", "flag": "true", "sign": "abc"}
	t.Run("JSON body", func(t *testing.T) {
		p, err := ParseJSONParams(body)
		if err != nil {
			t.Fatal(err)
		}
		copy(body, bytes.Repeat([]byte("x"), len(body)))
		if !maps.Equal(p, want) {
			t.Fatalf("after the body was reused: %q, want %q", p, want)
		}
	})
	t.Run("query string", func(t *testing.T) {
		var args fasthttp.Args
		raw := []byte("appid=A1&amount=100.50&description=plain+ascii&notify_url=https%3A%2F%2Fshop.test%2Fh%3Fx%3D1")
		args.ParseBytes(raw)
		p, err := ParseQueryParams(&args)
		if err != nil {
			t.Fatal(err)
		}
		// The next request's query, parsed into the same Args (as fasthttp
		// does): same shape, other bytes, so its buffers are reused.
		args.Reset()
		args.ParseBytes(bytes.Map(func(r rune) rune {
			if r == '=' || r == '&' {
				return r
			}
			return 'y'
		}, raw))
		want := schema.Params{"appid": "A1", "amount": "100.50", "description": "plain ascii", "notify_url": "https://shop.test/h?x=1"}
		if !maps.Equal(p, want) {
			t.Fatalf("after the query was reused: %q, want %q", p, want)
		}
	})
}
