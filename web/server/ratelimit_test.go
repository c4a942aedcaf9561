package server

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
)

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestRateLimitAnswer: a refusal of the limiter reaches the client as a 429
// in the JSON error body with Retry-After in whole seconds.
func TestRateLimitAnswer(t *testing.T) {
	l, err := platform.NewLimiter(testenv.Redis(t), platform.LimiterConfig{}, prometheus.NewRegistry(), discard())
	if err != nil {
		t.Fatal(err)
	}
	lim := platform.Limit{PerSecond: 1, Burst: 1}
	if err := l.Allow(context.Background(), "create", "1001", lim); err != nil {
		t.Fatal(err)
	}
	app := NewApp(discard(), prometheus.NewRegistry(), prometheus.NewRegistry())
	app.Get("/x", func(c *fiber.Ctx) error { return l.Allow(c.UserContext(), "create", "1001", lim) })
	res, _ := app.Test(httptest.NewRequest("GET", "/x", nil))
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" || !containsAll(string(body), `"error":"rate_limited"`, `"code":429`) {
		t.Fatalf("429 answer: %d %v %s", res.StatusCode, res.Header, body)
	}
}

// TestPerIPWhenRedisFails: through the HTTP stack, a class that fails closed
// answers 503 with the JSON error body, and the route behind it does not run.
func TestPerIPWhenRedisFails(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	mr.Close()
	l, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), discard())
	if err != nil {
		t.Fatal(err)
	}
	ips, err := platform.NewClientIP(nil)
	if err != nil {
		t.Fatal(err)
	}
	app := NewApp(discard(), prometheus.NewRegistry(), prometheus.NewRegistry())
	ran := false
	app.Get("/page", PerIP(l, platform.ClassPages, platform.Limit{PerSecond: 1, Burst: 5}, ips), func(c *fiber.Ctx) error {
		ran = true
		return c.SendString("page")
	})
	res, err := app.Test(httptest.NewRequest("GET", "/page", nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || ran || !containsAll(string(body), `"error":"unavailable"`, `"code":503`) {
		t.Fatalf("payer page with Redis gone: %d ran=%v %s", res.StatusCode, ran, body)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
