package main

import (
	"net"
	"testing"
)

func TestPlainTextWarning(t *testing.T) {
	tests := []struct {
		name, addr, publicURL string
		behindTLS, warn       bool
	}{
		{"loopback v4", "127.0.0.1:8080", "http://127.0.0.1:8080", false, false},
		{"loopback v6", "[::1]:8080", "", false, false},
		{"all interfaces", "0.0.0.0:8080", "http://pay.example", false, true},
		{"all interfaces v6", "[::]:8080", "", false, true},
		{"a LAN address", "192.168.1.10:8080", "http://192.168.1.10:8080", false, true},
		{"public, https public URL", "0.0.0.0:8080", "HTTPS://pay.example", false, false},
		{"public, behind TLS", "0.0.0.0:8080", "http://pay.example", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, err := net.ResolveTCPAddr("tcp", tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := plainTextWarning(addr, tt.publicURL, tt.behindTLS) != ""; got != tt.warn {
				t.Fatalf("warns %v, want %v", got, tt.warn)
			}
		})
	}
}
