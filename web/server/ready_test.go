package server

import (
	"github.com/paygate/gateway/platform"

	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestReadyz(t *testing.T) {
	ok := platform.Check{Name: "redis", Ping: func(context.Context) error { return nil }}
	down := platform.Check{Name: "clickhouse", Ping: func(context.Context) error { return errors.New("connection refused") }}
	tests := []struct {
		name   string
		checks []platform.Check
		status int
		body   string
	}{
		{"all answer", []platform.Check{ok}, 200, "ready"},
		{"one down", []platform.Check{ok, down}, 503, "clickhouse: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := NewApp(slog.New(slog.NewTextHandler(io.Discard, nil)), prometheus.NewRegistry(), prometheus.NewRegistry())
			app.Get("/readyz", Ready(nil, tt.checks...))
			res, err := app.Test(httptest.NewRequest("GET", "/readyz", nil))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status || !strings.Contains(string(body), tt.body) {
				t.Fatalf("%d %s", res.StatusCode, body)
			}
		})
	}
}
