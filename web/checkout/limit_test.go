package checkout

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// TestLimitCoversThePagesOnly: every page request takes one request from
// the per-IP limit, under a language too, and the routes mounted after the
// pages (the merchant API) take none.
func TestLimitCoversThePagesOnly(t *testing.T) {
	h := newHarness(t)
	calls := 0
	ips, err := platform.NewClientIP(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.PublicURL, cfg.CSRFKey = "http://127.0.0.1:8080", []byte(strings.Repeat("k", 32))
	count := func(c *fiber.Ctx) error { calls++; return c.Next() }
	h.pages, err = New(cfg, Deps{Orders: allPorts(h.orders), Payers: h.payers, ClientIP: ips, Limit: count, Merchants: fakeMerchants{}},
		prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h.app = fiber.New(fiber.Config{ErrorHandler: server.ErrorHandler(slog.New(slog.DiscardHandler))})
	h.pages.Register(h.app)
	h.app.Get("/api/createorder", func(c *fiber.Ctx) error { return c.SendString("api") })
	h.orders.add(order("l1"))
	cases := []struct {
		name, path string
		code, want int
	}{
		{"status", "/payment/l1/status", 200, 1},
		{"status under a language", "/zh/payment/l1/status", 200, 1},
		{"page", "/payment/l1", 200, 1},
		{"page under a language", "/en/payment/l1", 200, 1},
		{"login page", "/merchant/login", 200, 1},
		{"merchant API mounted after the pages", "/api/createorder", 200, 0},
		{"asset", "/checkout/assets/none.css", 404, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			if r := h.get(t, tc.path); r.code != tc.code {
				t.Fatalf("status %d, want %d: %.200s", r.code, tc.code, r.body)
			}
			if calls != tc.want {
				t.Errorf("the limit ran %d times, want %d", calls, tc.want)
			}
		})
	}
}
