package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxBodyRead bounds how much of an answer we read: "success" with any
// sensible white space fits many times over, and a merchant endpoint that
// streams megabytes costs us nothing.
const maxBodyRead = 4 << 10

// userAgent names us to merchants' logs and firewalls.
const userAgent = "gateway-webhook/1"

// newHTTPClient is the only client webhooks use: no proxy from the
// environment (it would hide the real destination from the address guard),
// no redirects (a 3xx is a failure: the merchant must give the final URL),
// and connections only to addresses the guard accepts.
func newHTTPClient(cfg Config) *http.Client {
	g := &guardedDialer{
		allowPrivate: cfg.AllowPrivate,
		resolver:     net.DefaultResolver,
		dialer:       &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second},
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           cfg.Concurrency * 2,
		MaxIdleConnsPerHost:    cfg.PerHost,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// result is what one HTTP attempt came to.
type result struct {
	status  int
	body    []byte
	ack     bool
	err     string // why it failed, for the attempt log; empty on success
	kind    string // outcome label for metrics
	latency time.Duration
}

// post sends one signed callback and judges the answer. ctx carries the
// attempt's deadline.
func post(ctx context.Context, c *http.Client, target, form string, timeout time.Duration) result {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form))
	if err != nil {
		return result{err: fmt.Sprintf("invalid notify_url: %v", err), kind: "invalid_url"}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.Do(req)
	if err != nil {
		r := failure(ctx, err, timeout)
		r.latency = time.Since(start)
		return r
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyRead+1))
	r := result{status: resp.StatusCode, latency: time.Since(start)}
	truncated := len(body) > maxBodyRead
	if truncated {
		body = body[:maxBodyRead]
	}
	r.body = body
	switch {
	case err != nil:
		r.kind, r.err = "network", "reading the response: "+describe(ctx, err, timeout)
	case acknowledged(resp.StatusCode, body, truncated):
		r.ack, r.kind = true, "success"
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		r.kind, r.err = "http_status", fmt.Sprintf("HTTP %d: redirects are not followed", resp.StatusCode)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		r.kind, r.err = "http_status", fmt.Sprintf("HTTP %d", resp.StatusCode)
	case truncated:
		r.kind, r.err = "not_acknowledged", fmt.Sprintf("response body longer than %d bytes is not \"success\"", maxBodyRead)
	default:
		r.kind, r.err = "not_acknowledged", "response body is not \"success\""
	}
	return r
}

// failure classifies an attempt that got no response.
func failure(ctx context.Context, err error, timeout time.Duration) result {
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return result{kind: "refused", err: refused.Error()}
	case isTimeout(ctx, err):
		return result{kind: "timeout", err: describe(ctx, err, timeout)}
	}
	return result{kind: "network", err: describe(ctx, err, timeout)}
}

func isTimeout(ctx context.Context, err error) bool {
	var ne net.Error
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// describe is an error as the attempt log shows it: the cause without Go's
// "Post \"url\":" prefix, and time-outs said plainly.
func describe(ctx context.Context, err error, timeout time.Duration) string {
	if isTimeout(ctx, err) {
		return fmt.Sprintf("timeout after %s", timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// hostOf is the destination a delivery's fairness limit counts against:
// host:port of the notify_url in lower case, with the scheme's port made
// explicit. A URL we cannot read gets a host of its own; its attempts fail.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "invalid"
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
