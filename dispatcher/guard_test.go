package dispatcher

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
)

func TestRefusal(t *testing.T) {
	tests := []struct {
		addr string
		want string
	}{
		{"93.184.215.14", ""},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", ""},
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"192.168.1.1", "private"},
		{"fd12::1", "private"},
		{"169.254.169.254", "metadata service"},
		{"fd00:ec2::254", "metadata service"},
		{"100.100.100.200", "metadata service"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"100.64.0.1", "reserved"},
		{"255.255.255.255", "reserved"},
		{"64:ff9b::a00:1", "private"},  // NAT64 of 10.0.0.1
		{"2002:7f00:1::1", "loopback"}, // 6to4 of 127.0.0.1
		{"64:ff9b::5db8:d70e", ""},     // NAT64 of a public address
	}
	for _, tt := range tests {
		if got := refusal(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("refusal(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

func TestGuardedDialerRefusesLoopbackNames(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	g := &guardedDialer{resolver: net.DefaultResolver, dialer: &net.Dialer{}}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		_, err := g.DialContext(context.Background(), "tcp", net.JoinHostPort(host, port))
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Reason != "loopback" {
			t.Errorf("dial %s: %v, want a loopback refusal", host, err)
		}
	}
	g.allowPrivate = true
	c, err := g.DialContext(context.Background(), "tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		t.Fatalf("allowed dial: %v", err)
	}
	c.Close()
}

func TestHostOf(t *testing.T) {
	tests := map[string]string{
		"https://Shop.Example/hook":      "shop.example:443",
		"http://shop.example/hook":       "shop.example:80",
		"http://shop.example:8080/h?x=1": "shop.example:8080",
		"https://[2001:db8::1]/h":        "[2001:db8::1]:443",
		"::not a url":                    "invalid",
	}
	for in, want := range tests {
		if got := hostOf(in); got != want {
			t.Errorf("hostOf(%q) = %q, want %q", in, got, want)
		}
	}
}
