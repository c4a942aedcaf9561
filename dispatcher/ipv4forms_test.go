package dispatcher

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// IPv6 addresses that carry 127.0.0.1 or 10.0.0.1 in one of the transition
// forms: none may be called, whatever the IPv4 predicates say of the IPv6
// address itself (a security review found http://[::127.0.0.1]:P/ dialled).
var ipv4Forms = []struct {
	name, addr, want string
}{
	{"IPv4-compatible loopback", "::127.0.0.1", "IPv4-compatible"},
	{"IPv4-compatible private", "::10.0.0.1", "IPv4-compatible"},
	{"IPv4-compatible public", "::93.184.215.14", "IPv4-compatible"},
	{"IPv4-mapped loopback", "::ffff:127.0.0.1", "loopback"},
	{"IPv4-mapped metadata", "::ffff:169.254.169.254", "metadata service"},
	{"IPv4-translated loopback", "::ffff:0:127.0.0.1", "IPv4-translated"},
	{"6to4 of loopback", "2002:7f00:1::1", "loopback"},
	{"6to4 of private", "2002:a00:1::", "private"},
	{"NAT64 of loopback", "64:ff9b::127.0.0.1", "loopback"},
	{"local NAT64 of loopback", "64:ff9b:1::7f00:1", "local NAT64"},
	{"Teredo of 127.0.0.1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo"},
}

func TestRefusalOfIPv6FormsCarryingIPv4(t *testing.T) {
	for _, tt := range ipv4Forms {
		t.Run(tt.name, func(t *testing.T) {
			if got := refusal(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("refusal(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}

// TestDialOfIPv6FormsCarryingIPv4: a notify_url naming each form literally
// is refused before any connection, and the check at connect (Control)
// refuses it too, for a path that dials by address.
func TestDialOfIPv6FormsCarryingIPv4(t *testing.T) {
	g := &guardedDialer{resolver: net.DefaultResolver, dialer: &net.Dialer{Timeout: time.Second}}
	for _, tt := range ipv4Forms {
		t.Run(tt.name, func(t *testing.T) {
			target := net.JoinHostPort(tt.addr, "8080")
			var refused *RefusedError
			if _, err := g.DialContext(context.Background(), "tcp", target); !errors.As(err, &refused) {
				t.Errorf("dial %s: %v, want a refusal", target, err)
			}
			if _, err := g.netDialer().DialContext(context.Background(), "tcp", target); !errors.As(err, &refused) {
				t.Errorf("socket check of %s: %v, want a refusal", target, err)
			}
		})
	}
}

// TestAttemptLogHidesOurNetwork: what an attempt that got no answer records
// for its merchant (action=webhooks) names neither our DNS server nor the
// address a name resolved to, nor our configuration; our own log line
// keeps the detail.
func TestAttemptLogHidesOurNetwork(t *testing.T) {
	ctx := context.Background()
	c := guardedClient(testConfig(), &guardedDialer{resolver: net.DefaultResolver, dialer: &net.Dialer{Timeout: time.Second}})
	tests := []struct {
		name, url, says string
	}{
		{"unknown name", "http://no-such-host.invalid/hook", "DNS: no such host no-such-host.invalid"},
		{"loopback by name", "http://localhost:9/hook", "refused: the notify_url host resolves to a non-public address (loopback)"},
		{"IPv4-compatible loopback", "http://[::127.0.0.1]:9/hook", "refused: the notify_url host resolves to a non-public address (IPv4-compatible)"},
	}
	servers := resolvers(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(ctx, c, tt.url, "a=1", modernHeaders{}, time.Second)
			if r.ack || !strings.HasPrefix(r.err, tt.says) {
				t.Fatalf("attempt error %q, want it to start %q", r.err, tt.says)
			}
			for _, leak := range append(servers, "127.0.0.1", "::1", "7f00:1", ":53", "GATEWAY_") {
				if strings.Contains(r.err, leak) {
					t.Errorf("attempt error %q names %q", r.err, leak)
				}
			}
			if r.detail == "" {
				t.Errorf("no detail kept for our log")
			}
		})
	}
}

// resolvers are the name servers this machine's resolver asks.
func resolvers(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "nameserver" {
			out = append(out, f[1])
		}
	}
	return out
}
