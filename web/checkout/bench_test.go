package checkout

import (
	"bytes"
	"net"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/schema"
)

// The payer pages' two hot addresses through the fiber app, without the
// network and with the command side faked: the pages' own cost per request
// (make bench measures them whole). -benchmem gives allocations.

func BenchmarkStatus(b *testing.B) {
	h := newHarness(b)
	h.orders.add(order("b-st"))
	benchGet(b, h, "/payment/b-st/status", []byte(`"status_str":"ready"`))
}

func BenchmarkSelectPage(b *testing.B) {
	h := newHarness(b)
	h.orders.methods = []schema.MethodOption{
		{Method: schema.MethodCryptohost, Limits: schema.AmountLimits{Min: 100, Max: 5000000}, Enabled: true},
		{Method: schema.MethodFiatPSP, Limits: schema.AmountLimits{Min: 100, Max: 5000000}, Enabled: true},
		{Method: schema.MethodCryptoPSP, Limits: schema.AmountLimits{Min: 500}, Enabled: true},
		{Method: schema.MethodUSDTDirect, Limits: schema.AmountLimits{Min: 100000}, Reason: "below_min"},
		{Method: schema.MethodBalance, Enabled: true},
	}
	h.orders.add(order("b-se", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }))
	benchGet(b, h, "/payment/b-se", []byte(`name="paymentMethod"`))
}

func benchGet(b *testing.B, h *harness, uri string, want []byte) {
	b.Helper()
	handler := h.app.Handler()
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
	b.ReportAllocs()
	for b.Loop() {
		var ctx fasthttp.RequestCtx
		var req fasthttp.Request
		req.SetRequestURI(uri)
		ctx.Init(&req, addr, nil)
		handler(&ctx)
		if ctx.Response.StatusCode() != 200 || !bytes.Contains(ctx.Response.Body(), want) {
			b.Fatalf("%s: %d %.200s", uri, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}
