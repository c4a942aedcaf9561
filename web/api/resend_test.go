package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// noAccounts knows no merchant: the door's own refusals come before any.
type noAccounts struct{}

func (noAccounts) Lookup(context.Context, string) (*merchant.Account, error) {
	return nil, platform.Errorf(platform.KindInvalidAppID, "unknown appid")
}

// TestResendBody: the resend door reads a JSON object of flat values and
// refuses any other body with createorder's error shape before the use case
// runs (the use case's own checks are dispatcher's TestResendAPI).
func TestResendBody(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	a, err := dispatcher.NewResendAPI(dispatcher.ResendConfig{}, rdb, noAccounts{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	app := server.NewApp(slog.New(slog.NewTextHandler(io.Discard, nil)), prometheus.NewRegistry(), prometheus.NewRegistry())
	app.Post("/api/order/webhooks/resend", Resend(a))
	tests := []struct {
		name   string
		body   string
		status int
		kind   string
	}{
		{"not JSON", "appid=1", 400, "invalid_request"},
		{"nested value", `{"appid":{"a":1}}`, 400, "invalid_request"},
		{"boolean", `{"appid":true}`, 400, "invalid_request"},
		{"too large", `{"appid":"` + strings.Repeat("1", maxResendBody) + `"}`, 413, "request_too_large"},
		{"number kept as sent, then checked", `{"appid":10,"action":"resend","paymentId":"P1"}`, 400, "missing_parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/api/order/webhooks/resend", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			res, err := app.Test(req, 5000)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var out map[string]any
			_ = json.NewDecoder(res.Body).Decode(&out)
			if res.StatusCode != tt.status || out["error"] != tt.kind {
				t.Fatalf("%d %v, want %d %s", res.StatusCode, out, tt.status, tt.kind)
			}
		})
	}
}
