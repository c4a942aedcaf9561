package main

import (
	"net"
	"net/netip"
	"strings"
)

// plainTextWarning is what serve says when it listens, in plain HTTP, on an
// address other machines can reach with nothing said to be terminating TLS
// in front: API keys, query keys and payer sessions would cross the network
// in clear. A loopback listener, GATEWAY_BEHIND_TLS=true, or an https
// public URL (the proxy that serves it terminates TLS) silence it. It is a
// warning, not a refusal: a private network behind a firewall may be fine.
func plainTextWarning(addr net.Addr, publicURL string, behindTLS bool) string {
	if behindTLS || strings.HasPrefix(strings.ToLower(publicURL), "https://") {
		return ""
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err == nil && ap.Addr().Unmap().IsLoopback() {
		return ""
	}
	return "listening on a non-loopback address in plain HTTP without TLS in front: keys and payer sessions cross the network in clear; " +
		"put a TLS-terminating proxy in front and set GATEWAY_BEHIND_TLS=true (or an https GATEWAY_PUBLIC_URL)"
}
