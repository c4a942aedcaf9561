package notify

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// noRates is FX that knows only a currency's own rate.
type noRates struct{}

func (noRates) Rate(p fx.Pair) (fx.Rate, bool) { return fx.Micros, p.Base == p.Quote }

// newDoor is the notifications door over command's use cases, whose only
// provider is the sandbox's wallet_a (no notification of this test reaches it).
func newDoor(t *testing.T) *fiber.App {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	usdt, err := command.NewUSDT(rdb, noRates{}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ips, err := platform.NewClientIP(nil)
	if err != nil {
		t.Fatal(err)
	}
	lim := platform.Limit{PerSecond: 1000, Burst: 1000}
	providers := provider.NewRegistry(map[schema.Method]provider.Adapter{schema.MethodWalletA: provider.Own{}}, nil)
	uc, err := command.New(command.Config{PublicURL: "https://pay.test", OrderTTL: time.Minute, OrderRetention: time.Hour,
		CreateLimit: lim, QueryLimit: lim, MethodLimits: command.DefaultMethodLimits()},
		command.Deps{Accounts: merchant.NewDirectory(merchant.NewStore(rdb), log, time.Second), Store: command.NewStore(rdb, time.Minute, time.Hour),
			Providers: providers, USDT: usdt, Rates: noRates{}, ClientIP: ips, Registerer: prometheus.NewRegistry(), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	app := server.NewApp(log, prometheus.NewRegistry(), prometheus.NewRegistry())
	Register(app, uc.Notifications, ips)
	return app
}

// TestNotificationRefusals: what the door refuses before a provider's
// adapter reads anything: a family the mode has none of is a route that
// does not exist, and a body over the bound is too large.
func TestNotificationRefusals(t *testing.T) {
	app := newDoor(t)
	tests := []struct {
		name   string
		path   string
		body   string
		status int
	}{
		{"unknown family", "/sandbox/gatewaynotification/nosuch/notify", "{}", 404},
		{"no live wallet_a", "/api/gatewaynotification/wallet_a/notify", "{}", 404},
		{"body over the bound", "/sandbox/gatewaynotification/wallet_a/notify", strings.Repeat("x", MaxNotificationBody+1), 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := app.Test(httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(tt.body)), 5000)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != tt.status {
				raw, _ := io.ReadAll(res.Body)
				t.Fatalf("%d %s, want %d", res.StatusCode, raw, tt.status)
			}
		})
	}
}
