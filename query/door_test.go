package query_test

import (
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/api"
	"github.com/paygate/gateway/web/server"
)

// TestMain hands the package's tests the door they drive the use cases
// through: the use case cannot import its door, and only this external
// test package may.
func TestMain(m *testing.M) {
	query.HTTPDoor = door
	os.Exit(m.Run())
}

// door mounts GET /api/order over q on an app of its own.
func door(q *query.Orders, log *slog.Logger) func(*http.Request, int) (*http.Response, error) {
	app := server.NewApp(log, prometheus.NewRegistry(), prometheus.NewRegistry())
	app.Get("/api/order", api.Orders(q))
	return func(r *http.Request, ms int) (*http.Response, error) { return app.Test(r, ms) }
}
