package platform

import (
	"net/netip"
	"testing"
)

func TestClientIPResolve(t *testing.T) {
	tests := []struct {
		name    string
		trusted []string
		peer    string
		xff     []string
		want    string
	}{
		{"untrusted peer, header ignored", nil, "203.0.113.1", []string{"1.2.3.4"}, "203.0.113.1"},
		{"trusted peer, one hop", []string{"10.0.0.0/8"}, "10.0.0.5", []string{"198.51.100.7"}, "198.51.100.7"},
		{"trusted peer, spoofed left", []string{"10.0.0.0/8"}, "10.0.0.5", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"},
		{"trusted chain", []string{"10.0.0.0/8"}, "10.0.0.5", []string{"198.51.100.7, 10.0.0.9"}, "198.51.100.7"},
		{"several headers", []string{"10.0.0.0/8"}, "10.0.0.5", []string{"198.51.100.7", "10.0.0.9"}, "198.51.100.7"},
		{"all trusted", []string{"10.0.0.0/8"}, "10.0.0.5", []string{"10.0.0.1"}, "10.0.0.1"},
		{"no header", []string{"10.0.0.0/8"}, "10.0.0.5", nil, "10.0.0.5"},
		{"garbage hop stops the walk", []string{"10.0.0.0/8"}, "10.0.0.5", []string{"198.51.100.7, junk"}, "10.0.0.5"},
		{"bare address trusted", []string{"127.0.0.1"}, "127.0.0.1", []string{"2001:db8::2"}, "2001:db8::2"},
		{"mapped peer", []string{"127.0.0.1/32"}, "::ffff:127.0.0.1", []string{"198.51.100.7"}, "198.51.100.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClientIP(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Resolve(netip.MustParseAddr(tt.peer), tt.xff)
			if got != netip.MustParseAddr(tt.want) {
				t.Fatalf("Resolve = %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := NewClientIP([]string{"10.0.0.0/33"}); err == nil {
		t.Fatal("bad CIDR accepted")
	}
}

func TestSameIP(t *testing.T) {
	a := netip.MustParseAddr("2001:db8::1")
	for claimed, want := range map[string]bool{"2001:db8::1": true, "2001:0db8::0001": true, " 2001:db8::1 ": true, "2001:db8::2": false, "": false, "host": false} {
		if got := SameIP(claimed, a); got != want {
			t.Errorf("SameIP(%q) = %v, want %v", claimed, got, want)
		}
	}
	if !SameIP("::ffff:1.2.3.4", netip.MustParseAddr("1.2.3.4")) {
		t.Error("mapped IPv4 must equal IPv4")
	}
}
