package command

import (
	"encoding/json"
	"net"
	"os"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/internal/testenv"
)

// BenchmarkCreateOrder measures one signed wallet_a create through the whole
// fiber handler (parse, auth, sign, validate, one Lua script) without the
// network in front of it, against the real Redis when the test environment
// has one. -benchmem gives allocations per create.
func BenchmarkCreateOrder(b *testing.B) {
	var h *harness
	if os.Getenv("GATEWAY_TEST_REDIS_URL") != "" {
		h = newHarness(b, testenv.Redis(b))
	} else {
		h = newMiniHarness(b)
	}
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
