package command

import (
	"encoding/json"
	"net"
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkCreateOrder measures one signed wallet_a create through the whole
// fiber handler (parse, auth, sign, validate, one Lua script) without the
// network in front of it, against the real Redis (skipped without one,
// like every harness test). -benchmem gives allocations per create.
func BenchmarkCreateOrder(b *testing.B) {
	h := newRedisHarness(b)
	handler := h.app.Handler()
	// No clientOrderId: every iteration is a new order, not a replay.
	body, _ := json.Marshal(signed(h.baseParams(), h.acct.APIKey))
	addr := &net.TCPAddr{IP: net.IPv4zero}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.SetRequestURI("/api/createorder")
		req.Header.SetContentType("application/json")
		req.SetBody(body)
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, addr, nil)
		handler(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("create: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}
