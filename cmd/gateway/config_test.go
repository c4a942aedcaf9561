package main

import (
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// TestServeListsEveryBadSettingBeforeConnecting: a start with several bad
// settings, of the process and of the packages that parse their own (method
// limits, USDT rates and networks, a provider, a live USDT backend), names them all in one configuration
// error and never dials Redis or ClickHouse: both point at a listener that
// counts the connections it is offered.
func TestServeListsEveryBadSettingBeforeConnecting(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"process and package settings", map[string]string{
			"GATEWAY_METHOD_LIMITS":           "wallet_a=lots",
			"GATEWAY_USDT_RATES":              "CNY=-7",
			"GATEWAY_ORDER_TTL_METHODS":       "nosuch=60m",
			"GATEWAY_RATE_CREATE":             "fast",
			"GATEWAY_PROVIDER_CRYPTOHOST":     `{"base_url": "nowhere"}`,
			"GATEWAY_PAYOUT_COOLING_OFF":      "-1h",
			"GATEWAY_PAYOUT_MAX_DESTINATIONS": "0",
		}, []string{"method-limits", "usdt rate", "nosuch", "GATEWAY_RATE_CREATE", "provider cryptohost", "payout-cooling-off", "payout-max-destinations"}},
		{"only the packages' settings", map[string]string{
			"GATEWAY_METHOD_LIMITS":         "wallet_a=lots",
			"GATEWAY_USDT_RATES":            "CNY=-7",
			"GATEWAY_USDT_SANDBOX_NETWORKS": "TRC20=nothere",
			"GATEWAY_PROVIDER_WALLET_A":     `{"BaseURL": "https://api.example.com"}`,
			"GATEWAY_BSC_URL":               "bsc-dataseed",
			"GATEWAY_FX_MAX_DEVIATION":      "0",
			"GATEWAY_EPAY_TYPES":            "t1=nosuchmethod",
		}, []string{"method-limits", "usdt rate", "usdt-sandbox-networks", "provider wallet_a", "bsc JSON-RPC URL", "fx-max-deviation 0",
			"epay-types"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, dials := countingListener(t)
			t.Setenv("GATEWAY_REDIS_URL", "redis://"+addr+"/0")
			t.Setenv("GATEWAY_CLICKHOUSE_DSN", "clickhouse://"+addr+"/gateway")
			t.Setenv("GATEWAY_HTTP_ADDR", "127.0.0.1:0")
			t.Setenv("GATEWAY_OPS_ADDR", "127.0.0.1:0")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			err := serve(context.Background(), nil, io.Discard)
			if err == nil {
				t.Fatal("serve started with bad settings")
			}
			if !strings.HasPrefix(err.Error(), "configuration: ") {
				t.Errorf("error is not the configuration's: %v", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not name %s:\n%v", want, err)
				}
			}
			if n := dials.Load(); n != 0 {
				t.Errorf("serve connected %d times before refusing its configuration", n)
			}
		})
	}
}

// countingListener is a loopback address that accepts and drops every
// connection, counting them.
func countingListener(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var dials atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dials.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), &dials
}
