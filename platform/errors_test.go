package platform

import (
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
		want ErrorBody
	}{
		{"domain", Errorf(KindInvalidSign, "sign does not match"), ErrorBody{401, "invalid_sign", "sign does not match"}},
		{"wrapped domain", fmt.Errorf("ctx: %w", Errorf(KindMerchantDisabled, "off")), ErrorBody{403, "merchant_disabled", "off"}},
		{"internal details hidden", errors.New("dial tcp 10.0.0.1:6379: refused"), ErrorBody{500, "internal_error", "internal error"}},
		{"domain error wrapping a cause hides the cause", &Error{Kind: KindUnavailable, Msg: "retry later", Err: errors.New("secret")}, ErrorBody{503, "unavailable", "retry later"}},
		{"fiber not found", fiber.ErrNotFound, ErrorBody{404, "not_found", "Not Found"}},
		{"fiber too large", fiber.ErrRequestEntityTooLarge, ErrorBody{413, "request_too_large", "Request Entity Too Large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Fatalf("Classify = %+v, want %+v", got, tt.want)
			}
		})
	}
	for kind := range statusOf {
		if Status(kind) < 400 {
			t.Errorf("kind %s maps to %d", kind, Status(kind))
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
		{"rate limit", &RateLimited{RetryAfter: 1500 * time.Millisecond}, 429, "2"},
		{"busy with a wait", &Error{Kind: KindUnavailable, Msg: "busy", RetryAfter: 2 * time.Second}, 503, "2"},
		{"wrapped refusal", fmt.Errorf("gate: %w", &Error{Kind: KindRateLimited, Msg: "queue full", RetryAfter: time.Second}), 429, "1"},
		{"no wait", Errorf(KindUnavailable, "down"), 503, ""},
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
