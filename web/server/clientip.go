package server

import (
	"net/netip"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
)

// ClientAddr resolves the client address of a request: the peer, or what a
// trusted proxy in front of it forwarded (platform.ClientIP.Resolve).
func ClientAddr(ips *platform.ClientIP, c *fiber.Ctx) netip.Addr {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	var xff []string
	for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		xff = append(xff, string(v))
	}
	return ips.Resolve(peer, xff)
}

// PerIP limits a route group by client address, for the payer pages; a nil
// limiter limits nothing.
func PerIP(l *platform.Limiter, class string, lim platform.Limit, ips *platform.ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if l == nil {
			return c.Next()
		}
		if err := l.Allow(c.UserContext(), class, ClientAddr(ips, c).String(), lim); err != nil {
			return err
		}
		return c.Next()
	}
}
