package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/schema"
)

// payMethod is the method and currency of the creates a phase sends.
type payMethod struct{ method, currency string }

// ownCreate is the gateway's own create path, the one the ceiling models:
// one script, no provider called (the payer chooses the method later).
// providerCreates also call a provider, the sandbox's in-process simulator:
// cryptohost (JSON with an API key) shows what the second step costs,
// wallet_a also its RSA signatures (two 2048-bit signs per create).
var (
	ownCreate       = payMethod{"select", "USD"}
	providerCreates = []payMethod{{"cryptohost", "USD"}, {"wallet_a", "CNY"}}
)

// createBodies pre-signs n createorder bodies of merchant a, each with its
// own clientOrderId (prefix-i), so that every request is a new order, not
// an idempotent replay. notify, when not nil, gives request i's notify_url.
// Signing happens here, before the clock starts: the generator only sends.
func createBodies(a account, pm payMethod, prefix string, n int, notify func(i int) string) *loadgen.Bodies {
	var b loadgen.Bodies
	b.Grow(n, 260)
	p := schema.Params{
		"action": "createorder", "amount": "100.00", "appid": a.AppID, "clientip": "127.0.0.1",
		"currency": pm.currency, "paymentMethod": pm.method, "description": "bench order",
	}
	buf := make([]byte, 0, 512)
	for i := range n {
		p["clientOrderId"] = prefix + "-" + strconv.Itoa(i)
		if notify != nil {
			p["notify_url"] = notify(i)
		}
		sign := schema.Sign(p, a.APIKey)
		buf = append(buf[:0], '{')
		for _, k := range []string{"action", "amount", "appid", "clientip", "clientOrderId", "currency", "paymentMethod", "description", "notify_url"} {
			v, ok := p[k]
			if !ok {
				continue
			}
			buf = strconv.AppendQuote(buf, k) // keys and values are plain ASCII: Go and JSON quote them alike
			buf = append(buf, ':')
			buf = strconv.AppendQuote(buf, v)
			buf = append(buf, ',')
		}
		buf = append(buf, `"sign":"`...)
		buf = append(buf, sign...)
		buf = append(buf, `"}`...)
		b.Add(buf)
	}
	return &b
}

// createTarget posts bodies to /api/createorder.
func createTarget(b *loadgen.Bodies) *loadgen.Post {
	return &loadgen.Post{Path: "/api/createorder", ContentType: "application/json", Bodies: *b}
}

var (
	okPrefix     = []byte(`{"code":0,`)
	paymentIDKey = []byte(`"paymentId":"`)
)

// paymentID finds data.paymentId in a success response without decoding it.
func paymentID(body []byte) (string, error) {
	if !bytes.HasPrefix(body, okPrefix) {
		return "", fmt.Errorf("not a success: %.120s", body)
	}
	i := bytes.Index(body, paymentIDKey)
	if i < 0 {
		return "", errors.New("success without paymentId")
	}
	rest := body[i+len(paymentIDKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return "", errors.New("truncated paymentId")
	}
	return string(rest[:j]), nil
}

// checkCreate accepts a 200 success and keeps its paymentId in ids[i] when
// ids is long enough (ids is written at distinct indices only).
func checkCreate(ids []string) func(r *loadgen.Response) error {
	return func(r *loadgen.Response) error {
		if r.Status != fasthttp.StatusOK {
			return fmt.Errorf("status %d", r.Status)
		}
		id, err := paymentID(r.Body)
		if err != nil {
			return err
		}
		if r.Index < len(ids) {
			ids[r.Index] = id
		}
		return nil
	}
}

// checkOK accepts a 200 success response.
func checkOK(r *loadgen.Response) error {
	if r.Status != fasthttp.StatusOK {
		return fmt.Errorf("status %d", r.Status)
	}
	if !bytes.HasPrefix(r.Body, okPrefix) {
		return fmt.Errorf("not a success: %.80s", r.Body)
	}
	return nil
}

// orderURIs are action=order queries of ids (Redis-served, live orders).
func orderURIs(a account, ids []string) []string {
	out := make([]string, 0, len(ids))
	base := "/api/order?action=order&appid=" + url.QueryEscape(a.AppID) + "&key=" + url.QueryEscape(a.QueryKey) + "&paymentId="
	for _, id := range ids {
		if id != "" {
			out = append(out, base+id)
		}
	}
	return out
}

// listURI is an unfiltered action=orders page.
func listURI(a account, page int) string {
	return "/api/order?action=orders&appid=" + url.QueryEscape(a.AppID) + "&key=" + url.QueryEscape(a.QueryKey) +
		"&page=" + strconv.Itoa(page) + "&limit=10"
}

// payTarget posts the sandbox driver's pay for each id, in order.
func payTarget(a account, ids []string) loadgen.TargetFunc {
	uris := make([]string, len(ids))
	for i, id := range ids {
		uris[i] = "/sandbox/orders/" + id + "/pay?appid=" + url.QueryEscape(a.AppID) + "&key=" + url.QueryEscape(a.QueryKey)
	}
	return func(i int, req *fasthttp.Request) bool {
		if i >= len(uris) {
			return false
		}
		req.Header.SetMethod(fasthttp.MethodPost)
		req.SetRequestURI(uris[i])
		return true
	}
}

// compact drops the empty slots of requests that failed.
func compact(ids []string) []string {
	out := ids[:0:0]
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	return out
}
