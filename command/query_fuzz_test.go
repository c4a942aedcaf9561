package command

import (
	"errors"
	"net/url"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// FuzzParseQueryParams checks the GET and form parameter parser on any
// query string: it refuses a repeated name with a client error and
// nothing else; what it yields, encoded again, parses to the same set.
func FuzzParseQueryParams(f *testing.F) {
	for _, seed := range []string{
		"appid=1001&key=k&action=order&paymentId=P1",
		"appid=1001&appid=1002", "a=%zz&b=%E2%82%AC", "a&b=&=c", "a=1;b=2", "%00=%00", "a+b=c+d", "",
		"description=%E8%AE%A2%E5%8D%95+%2342&return_url=https%3A%2F%2Fshop.example%2F%3Fa%3D1%26b%3D2",
		"customerName=Eve&paymentMethod=balance&zzz%26paymentMethod=wallet_a",
		"customerName=Eve&paymentMethod=balance&return_url=https://e.test/?%26paymentMethod=wallet_a",
		"description=hi&notify_url=https://e.test/?%26notify_url=https://shop.test/h&paymentMethod=x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		var args fasthttp.Args
		args.Parse(query)
		p, err := ParseQueryParams(&args)
		seen, repeated := map[string]bool{}, false
		args.VisitAll(func(k, _ []byte) {
			repeated = repeated || seen[string(k)]
			seen[string(k)] = true
		})
		if repeated && err == nil {
			t.Fatalf("%q names a parameter twice and was accepted: which value was signed is a guess", query)
		}
		if err != nil {
			var de *platform.Error
			if !errors.As(err, &de) || de.Kind != platform.KindBadRequest {
				t.Fatalf("%q: %v, want a bad-request error", query, err)
			}
			return
		}
		again := url.Values{}
		for k, v := range p {
			again.Set(k, v)
		}
		var back fasthttp.Args
		back.Parse(again.Encode())
		q, err := ParseQueryParams(&back)
		if err != nil {
			t.Fatalf("re-encoded %q refused: %v", again.Encode(), err)
		}
		if len(q) != len(p) {
			t.Fatalf("%q: %d parameters, re-encoded %d", query, len(p), len(q))
		}
		for k, v := range p {
			if q[k] != v {
				t.Fatalf("%q: %s=%q came back as %q", query, k, v, q[k])
			}
		}
		checkUniqueSplit(t, schema.CreateForm, p)
	})
}
