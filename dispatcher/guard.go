package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
)

// RefusedError is an attempt the dispatcher would not make: every address
// the notify_url's host resolves to is one a merchant must not make us call
// (our own network, the cloud metadata service).
type RefusedError struct {
	Host   string
	Addr   netip.Addr
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused: notify_url host %s resolves to %s address %s (GATEWAY_WEBHOOK_ALLOW_PRIVATE=true allows it)",
		e.Host, e.Reason, e.Addr)
}

// Public is the refusal as its merchant reads it: the kind of address, not
// the address our resolver gave (nor, for a check at connect, the host it
// came from) nor our configuration.
func (e *RefusedError) Public() string {
	return "refused: the notify_url host resolves to a non-public address (" + e.Reason + "); webhooks go to public addresses only"
}

// metadataAddrs are the cloud instance metadata services, named apart so
// the refusal says what they are.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// reservedNets are special-purpose IPv4 ranges the net/netip predicates do
// not cover but that never hold a merchant's public endpoint.
var reservedNets = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"), // reserved and broadcast
	netip.MustParsePrefix("fec0::/10"),   // deprecated site-local
}

// IPv6 forms that carry an IPv4 address. NAT64 (a DNS64 resolver's answer
// for an IPv4-only host) and 6to4 are judged by the IPv4 address inside.
// The rest never name a merchant's server but can reach our own: Linux
// routes an IPv4-compatible ::127.0.0.1 to loopback, and a Teredo or
// IPv4-translated address hides one the predicates below would refuse, so
// they are refused whatever they carry.
var (
	nat64Net  = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	embedsV4  = []struct {
		net    netip.Prefix
		reason string
	}{
		{netip.MustParsePrefix("::/96"), "IPv4-compatible"},           // ::a.b.c.d (deprecated, RFC 4291)
		{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"}, // SIIT, RFC 2765
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64"},      // RFC 8215: a private translator
		{netip.MustParsePrefix("2001::/32"), "Teredo"},                // RFC 4380: client IPv4 XORed inside
	}
)

// refusal says why a webhook must not go to a, or "" when it may.
func refusal(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() && nat64Net.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:16]))
	} else if a.Is6() && sixToFour.Contains(a) {
		b := a.As16()
		if r := refusal(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
			return r
		}
	}
	if a.Is6() && !a.IsUnspecified() && !a.IsLoopback() {
		for _, e := range embedsV4 {
			if e.net.Contains(a) {
				return e.reason
			}
		}
	}
	for _, m := range metadataAddrs {
		if a == m {
			return "metadata service"
		}
	}
	switch {
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range reservedNets {
		if p.Contains(a) {
			return "reserved"
		}
	}
	return ""
}

// guardedDialer resolves the host itself and connects only to addresses
// that pass refusal, by IP: what was checked is what is dialled, so a DNS
// answer that changes between check and connect (rebinding) gains nothing.
// The socket's own address is checked once more just before connect
// (net.Dialer.Control), so a later change that dials by name, or a dial
// path that skips the lookup, still cannot reach a refused address.
type guardedDialer struct {
	allowPrivate bool
	resolver     *net.Resolver
	dialer       *net.Dialer
	// lookup and refuse replace the resolver and refusal in tests (a name
	// that answers differently on each lookup; a policy under which one
	// loopback address stands for a public one). nil means the real ones.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	refuse func(netip.Addr) string
}

// why is the refusal of a under g's policy, "" when it may be dialled.
func (g *guardedDialer) why(a netip.Addr) string {
	if g.allowPrivate {
		return ""
	}
	if g.refuse != nil {
		return g.refuse(a)
	}
	return refusal(a)
}

func (g *guardedDialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if g.lookup != nil {
		return g.lookup(ctx, host)
	}
	return g.resolver.LookupNetIP(ctx, "ip", host)
}

// netDialer is g's dialer with the last check attached: Control sees the
// address the socket is about to connect to, after every resolution.
func (g *guardedDialer) netDialer() *net.Dialer {
	d := *g.dialer
	d.Control = func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: not an address", address)
		}
		if r := g.why(ap.Addr()); r != "" {
			return &RefusedError{Host: address, Addr: ap.Addr().Unmap(), Reason: r}
		}
		return nil
	}
	return &d
}

func (g *guardedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", portStr, err)
	}
	ips, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var allowed []netip.Addr
	var refused *RefusedError
	for _, ip := range ips {
		if r := g.why(ip); r != "" {
			if refused == nil {
				refused = &RefusedError{Host: host, Addr: ip.Unmap(), Reason: r}
			}
			continue
		}
		allowed = append(allowed, ip.Unmap())
	}
	if len(allowed) == 0 {
		if refused != nil {
			return nil, refused
		}
		return nil, fmt.Errorf("host %s has no address", host)
	}
	var errs []error
	d := g.netDialer()
	for _, ip := range allowed {
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}
