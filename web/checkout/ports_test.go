package checkout

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
)

// TestNewRefusesAMissingPort: the pages start only with every port wired,
// so a page never meets a nil use case while serving a payer.
func TestNewRefusesAMissingPort(t *testing.T) {
	f := newFakeOrders()
	tests := []struct {
		name string
		drop func(*OrderPorts)
	}{
		{"reads", func(o *OrderPorts) { o.Reads = nil }},
		{"choose", func(o *OrderPorts) { o.Choose = nil }},
		{"cancel", func(o *OrderPorts) { o.Cancel = nil }},
		{"steps", func(o *OrderPorts) { o.Steps = nil }},
		{"usdt", func(o *OrderPorts) { o.USDT = nil }},
		{"balance", func(o *OrderPorts) { o.Balance = nil }},
	}
	ips, err := platform.NewClientIP(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.PublicURL, cfg.CSRFKey = "http://127.0.0.1:8080", []byte(strings.Repeat("k", 32))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ports := allPorts(f)
			tt.drop(&ports)
			_, err := New(cfg, Deps{Orders: ports, Payers: &fakePayers{}, ClientIP: ips, Merchants: fakeMerchants{}},
				prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
			if err == nil {
				t.Fatal("pages built without that port")
			}
		})
	}
}
