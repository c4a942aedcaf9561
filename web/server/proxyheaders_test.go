package server

import (
	"github.com/paygate/gateway/platform"

	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// TestForwardingHeadersOnlyFromTrustedProxies: X-Forwarded-Host and
// X-Forwarded-Proto change what a handler's BaseURL says only when the
// peer is a trusted proxy (app.Test's peer is 0.0.0.0).
func TestForwardingHeadersOnlyFromTrustedProxies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []string
		want    string
	}{
		{"no trusted proxy", nil, "http://gateway.example"},
		{"another proxy", []string{"10.0.0.0/8"}, "http://gateway.example"},
		{"the peer is trusted", []string{"0.0.0.0"}, "https://evil.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := NewAppReading(platform.DefaultReadTimeout, tc.trusted, slog.New(slog.NewTextHandler(io.Discard, nil)), prometheus.NewRegistry(), nil)
			app.Get("/where", func(c *fiber.Ctx) error { return c.SendString(c.BaseURL()) })
			req := httptest.NewRequest("GET", "http://gateway.example/where", nil)
			req.Header.Set("X-Forwarded-Host", "evil.example")
			req.Header.Set("X-Forwarded-Proto", "https")
			res, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := io.ReadAll(res.Body); string(b) != tc.want {
				t.Fatalf("BaseURL %q, want %q", b, tc.want)
			}
		})
	}
}
