package server

import (
	"github.com/paygate/gateway/platform"

	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want platform.ErrorBody
	}{
		{"domain", platform.Errorf(platform.KindInvalidSign, "sign does not match"), platform.ErrorBody{Code: 401, Error: "invalid_sign", Msg: "sign does not match"}},
		{"wrapped domain", fmt.Errorf("ctx: %w", platform.Errorf(platform.KindMerchantDisabled, "off")), platform.ErrorBody{Code: 403, Error: "merchant_disabled", Msg: "off"}},
		{"internal details hidden", errors.New("dial tcp 10.0.0.1:6379: refused"), platform.ErrorBody{Code: 500, Error: "internal_error", Msg: "internal error"}},
		{"domain error wrapping a cause hides the cause", &platform.Error{Kind: platform.KindUnavailable, Msg: "retry later", Err: errors.New("secret")}, platform.ErrorBody{Code: 503, Error: "unavailable", Msg: "retry later"}},
		{"fiber not found", fiber.ErrNotFound, platform.ErrorBody{Code: 404, Error: "not_found", Msg: "Not Found"}},
		{"fiber too large", fiber.ErrRequestEntityTooLarge, platform.ErrorBody{Code: 413, Error: "request_too_large", Msg: "Request Entity Too Large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Fatalf("Classify = %+v, want %+v", got, tt.want)
			}
		})
	}
	for kind := range platform.Kinds() {
		if platform.Status(kind) < 400 {
			t.Errorf("kind %s maps to %d", kind, platform.Status(kind))
		}
	}
}

// TestErrorHandlerRetryAfter: a refusal of load says when to come back, a
// rate limit's as well as a domain error's that carries a wait (the read
// gate's queue or wait bound); other errors carry no Retry-After.
func TestErrorHandlerRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		want   string
	}{
		{"rate limit", &platform.RateLimited{RetryAfter: 1500 * time.Millisecond}, 429, "2"},
		{"busy with a wait", &platform.Error{Kind: platform.KindUnavailable, Msg: "busy", RetryAfter: 2 * time.Second}, 503, "2"},
		{"wrapped refusal", fmt.Errorf("gate: %w", &platform.Error{Kind: platform.KindRateLimited, Msg: "queue full", RetryAfter: time.Second}), 429, "1"},
		{"no wait", platform.Errorf(platform.KindUnavailable, "down"), 503, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))})
			app.Get("/", func(*fiber.Ctx) error { return tt.err })
			res, err := app.Test(httptest.NewRequest("GET", "/", nil))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.status || res.Header.Get("Retry-After") != tt.want {
				t.Fatalf("status %d Retry-After %q, want %d %q", res.StatusCode, res.Header.Get("Retry-After"), tt.status, tt.want)
			}
		})
	}
}
