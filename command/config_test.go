package command

import (
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

func TestDefaults(t *testing.T) {
	valid := func() Config { c := Defaults(); c.PublicURL = "https://pay.test"; return c }
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", valid(), true},
		{"no public URL", Defaults(), false},
		{"no order TTL", func() Config { c := valid(); c.OrderTTL = 0; return c }(), false},
		{"no create limit", func() Config { c := valid(); c.CreateLimit.PerSecond = 0; return c }(), false},
		{"negative idempotency TTL", func() Config { c := valid(); c.IdempotencyTTL = -time.Second; return c }(), false},
		{"negative review window", func() Config { c := valid(); c.USDTReviewWindow = -time.Second; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	zero := Config{}
	if zero.Validate(); zero.USDTReviewWindow != 0 || zero.IdempotencyTTL != 0 {
		t.Fatalf("Validate filled %+v", zero)
	}
	got := zero.withDefaults()
	if got.USDTReviewWindow != 24*time.Hour || got.IdempotencyTTL != 24*time.Hour {
		t.Fatalf("zero config filled to review %s, idempotency %s; want 24h, 24h", got.USDTReviewWindow, got.IdempotencyTTL)
	}
	if got.OrderTTL != 0 || got.PublicURL != "" {
		t.Fatalf("withDefaults filled what the caller must give: %+v", got)
	}
	d := Defaults()
	if d.OrderTTL != 30*time.Minute || d.OrderRetention != 7*24*time.Hour || d.CreateLimit.PerSecond != 1000 || d.QueryLimit.PerSecond != 200 {
		t.Fatalf("Defaults = %+v, want serve's order times and limits", d)
	}
}

// TestProviderURLsNameTheOrdersChannel: an order on a channel other than
// the default gives its provider that channel's notification path (and,
// for bdpsp_b, its browser returns there too), so the notification is
// verified with that channel's secrets; the default channel keeps the
// paths of before channels.
func TestProviderURLsNameTheOrdersChannel(t *testing.T) {
	c := Config{PublicURL: "https://pay.test"}
	tests := []struct {
		name                 string
		o                    schema.Order
		notify, fail, cancel string
	}{
		{"no channel", schema.Order{ID: "P1", Method: schema.MethodWalletA, Sandbox: true},
			"https://pay.test/sandbox/gatewaynotification/wallet_a/notify", "https://pay.test/payment/P1", "https://pay.test/payment/P1"},
		{"default channel", schema.Order{ID: "P1", Method: schema.MethodWalletA, Channel: "default"},
			"https://pay.test/api/gatewaynotification/wallet_a/notify", "https://pay.test/payment/P1", "https://pay.test/payment/P1"},
		{"channel b", schema.Order{ID: "P1", Method: schema.MethodWalletA, Channel: "b"},
			"https://pay.test/api/gatewaynotification/wallet_a/ch/b/notify", "https://pay.test/payment/P1", "https://pay.test/payment/P1"},
		{"bdpsp_b's returns on channel b", schema.Order{ID: "P1", Method: schema.MethodBDPSPB, Sandbox: true, Channel: "b"},
			"https://pay.test/sandbox/gatewaynotification/bdpsp_b/ch/b/return", "https://pay.test/sandbox/gatewaynotification/bdpsp_b/ch/b/return/fail",
			"https://pay.test/sandbox/gatewaynotification/bdpsp_b/ch/b/return/cancel"},
		{"fiatpsp's failure return on channel b", schema.Order{ID: "P1", Method: schema.MethodFiatPSP, Channel: "b"},
			"https://pay.test/api/gatewaynotification/fiatpsp/ch/b/notify", "https://pay.test/api/gatewaynotification/fiatpsp/ch/b/return/fail?paymentId=P1",
			"https://pay.test/payment/P1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notify, _, fail, cancel := c.ProviderURLs(&tt.o)
			if notify != tt.notify || fail != tt.fail || cancel != tt.cancel {
				t.Fatalf("notify %s fail %s cancel %s\nwant   %s fail %s cancel %s", notify, fail, cancel, tt.notify, tt.fail, tt.cancel)
			}
		})
	}
}
