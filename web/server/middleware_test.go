package server

import (
	"github.com/paygate/gateway/platform"

	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRequestIDAndMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	app := NewApp(slog.New(slog.NewTextHandler(io.Discard, nil)), reg, reg)
	app.Get("/payment/:paymentId", func(c *fiber.Ctx) error {
		return c.SendString(platform.RequestID(c.UserContext()))
	})
	app.Get("/boom", func(*fiber.Ctx) error { return platform.Errorf(platform.KindNotFound, "nope") })
	app.Use(NotFound)
	tests := []struct {
		name, path, sent string
		status           int
		echo             bool
	}{
		{"caller's id kept", "/payment/P1", "abc-123", 200, true},
		{"odd id replaced", "/payment/P2", "a b\n", 200, false},
		{"no id", "/payment/P3", "", 200, false},
		{"domain error", "/boom", "", 404, false},
		{"unmatched", "/nowhere", "", 404, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.sent != "" {
				req.Header.Set(HeaderRequestID, tt.sent)
			}
			res, err := app.Test(req)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Header.Get(HeaderRequestID)
			if res.StatusCode != tt.status || got == "" || (got == tt.sent) != tt.echo {
				t.Fatalf("status %d, request id %q (sent %q)", res.StatusCode, got, tt.sent)
			}
		})
	}
	want := `
# HELP gateway_http_requests_total HTTP requests by route pattern, method and status.
# TYPE gateway_http_requests_total counter
gateway_http_requests_total{method="GET",route="/boom",status="404"} 1
gateway_http_requests_total{method="GET",route="/payment/:paymentId",status="200"} 3
gateway_http_requests_total{method="GET",route="unmatched",status="404"} 1
`
	want += `
# HELP gateway_http_errors_total Error answers by route pattern and error kind (invalid_sign, clientip_mismatch, invalid_appid, ...).
# TYPE gateway_http_errors_total counter
gateway_http_errors_total{kind="not_found",route="unmatched"} 1
gateway_http_errors_total{kind="order_not_found",route="/boom"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "gateway_http_requests_total", "gateway_http_errors_total"); err != nil {
		t.Fatal(err)
	}
}
