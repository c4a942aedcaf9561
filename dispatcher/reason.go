package dispatcher

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"

	"github.com/valyala/fasthttp"
)

// publicReason is why an attempt got no answer, as the merchant reads it in
// the attempt log (action=webhooks, the console): what is wrong at their
// end, never what is ours. A resolver's error names our DNS server and a
// socket error our own addresses, so each is told by its kind alone; the
// full error goes to the operators' log line (result.detail).
func publicReason(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "DNS: no such host " + clipHost(dns.Name)
	case errors.As(err, &dns) && dns.IsTimeout:
		return "DNS: the lookup of " + clipHost(dns.Name) + " timed out"
	case errors.As(err, &dns):
		return "DNS: the lookup of " + clipHost(dns.Name) + " failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "connection reset by the server"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.As(err, &cert):
		return "TLS: the server's certificate is not valid for it"
	case errors.Is(err, fasthttp.ErrConnectionClosed):
		return "the server closed the connection before answering"
	}
	return "connection failed"
}

// clipHost bounds a host name echoed back to its merchant.
func clipHost(h string) string {
	if len(h) > 253 {
		return h[:253]
	}
	return h
}
