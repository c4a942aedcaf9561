package command_test

import (
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/api"
	"github.com/paygate/gateway/web/notify"
	"github.com/paygate/gateway/web/server"
)

// TestMain hands the package's tests the door they drive the use cases
// through: the use case cannot import its door, and only this external
// test package may.
func TestMain(m *testing.M) {
	command.HTTPDoor = door
	os.Exit(m.Run())
}

// door mounts the API door over uc on an app of its own; a nil limiter
// limits nothing (limits have their own tests).
func door(uc *command.UseCases, pages platform.Limit, log *slog.Logger) func(*http.Request) (*http.Response, error) {
	app := server.NewApp(log, prometheus.NewRegistry(), prometheus.NewRegistry())
	var limiter *platform.Limiter
	(&api.Handlers{UseCases: uc, Pages: server.PerIP(limiter, "pages", pages, uc.ClientIP())}).Register(app)
	notify.Register(app, uc.Notifications, uc.ClientIP())
	return func(r *http.Request) (*http.Response, error) { return app.Test(r, 5000) }
}
