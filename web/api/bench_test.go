package api

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/schema"
)

// BenchmarkCreateOrder measures one signed wallet_a create through the whole
// fiber handler (parse, auth, sign, validate, one Lua script) without the
// network in front of it, against the real Redis (skipped without one,
// like every harness test). -benchmem gives allocations per create.
func BenchmarkCreateOrder(b *testing.B) {
	h := newRedisHarness(b)
	// No clientOrderId: every iteration is a new order, not a replay.
	body, _ := json.Marshal(signed(h.baseParams(), h.acct.APIKey))
	runCreates(b, h, func(int) []byte { return body })
}

// BenchmarkCreateOrderFee is BenchmarkCreateOrder with an operator's
// default schedule for wallet_a in CNY: the lookup is the process's copy
// (no Redis round trip), the order one field larger.
func BenchmarkCreateOrderFee(b *testing.B) {
	h := newRedisHarness(b)
	ctx := context.Background()
	h.rdb.HSet(ctx, schema.FeesKey, schema.FeeField("", schema.MethodWalletA, "CNY"), "290:30:0:0")
	if err := h.fees.Load(ctx); err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(signed(h.baseParams(), h.acct.APIKey))
	runCreates(b, h, func(int) []byte { return body })
}

// BenchmarkCreateOrderSelect is the create `make bench` headlines, the one
// whose CPU per create we work to cut: select in USD (one script, no provider
// asked), each with its own clientOrderId, the body gwbench sends. Bodies are
// signed before the clock starts, as the generator's are.
func BenchmarkCreateOrderSelect(b *testing.B) {
	h := newRedisHarness(b)
	bodies := make([][]byte, b.N)
	for i := range bodies {
		p := signed(map[string]string{
			"action": "createorder", "amount": "100.00", "appid": h.acct.AppID, "clientip": testIP,
			"currency": "USD", "paymentMethod": "select", "description": "bench order",
			"clientOrderId": "bsel-" + strconv.Itoa(i),
		}, h.acct.APIKey)
		bodies[i], _ = json.Marshal(p)
	}
	runCreates(b, h, func(i int) []byte { return bodies[i] })
}

// runCreates posts body(i) through the whole fiber handler b.N times.
func runCreates(b *testing.B, h *harness, body func(i int) []byte) {
	handler := h.app.Handler()
	addr := &net.TCPAddr{IP: net.IPv4zero}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.SetRequestURI("/api/createorder")
		req.Header.SetContentType("application/json")
		req.SetBody(body(i))
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, addr, nil)
		handler(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("create: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}
