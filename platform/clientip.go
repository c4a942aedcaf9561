package platform

import (
	"fmt"
	"net/netip"
	"strings"
)

// ClientIP decides which address a request came from. X-Forwarded-For is only
// believed when the peer is a trusted proxy, and then read from the right,
// skipping further trusted proxies: the left part of the header is whatever
// the client chose to send and proves nothing.
type ClientIP struct {
	trusted []netip.Prefix
}

// NewClientIP parses the trusted proxy CIDRs (a bare address is one host).
func NewClientIP(cidrs []string) (*ClientIP, error) {
	c := &ClientIP{}
	for _, s := range cidrs {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
			}
			c.trusted = append(c.trusted, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
		}
		c.trusted = append(c.trusted, p.Masked())
	}
	return c, nil
}

func (c *ClientIP) isTrusted(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Resolve returns the client's address given the TCP peer and the
// X-Forwarded-For header values (possibly several headers).
func (c *ClientIP) Resolve(peer netip.Addr, xff []string) netip.Addr {
	peer = peer.Unmap()
	if !c.isTrusted(peer) {
		return peer
	}
	client := peer
	for i := len(xff) - 1; i >= 0; i-- {
		hops := strings.Split(xff[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
			if err != nil {
				return client
			}
			client = a.Unmap()
			if !c.isTrusted(client) {
				return client
			}
		}
	}
	return client
}

// SameIP compares the merchant's clientip with the resolved address, so that
// "::ffff:1.2.3.4" and "1.2.3.4", or two spellings of one IPv6 address, agree.
func SameIP(claimed string, actual netip.Addr) bool {
	a, err := netip.ParseAddr(strings.TrimSpace(claimed))
	if err != nil {
		return false
	}
	return a.Unmap() == actual.Unmap()
}
