package dispatcher

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// maxBodyRead bounds how much of an answer we read: "success" with any
// sensible white space fits many times over, and a merchant endpoint that
// streams megabytes costs us nothing.
const maxBodyRead = 4 << 10

// userAgent names us to merchants' logs and firewalls.
const userAgent = "gateway-webhook/1"

// newHTTPClient is the only client webhooks use. It is fasthttp's, which
// costs a third of net/http's CPU per request, and what a dispatcher does at
// thousands of deliveries a second is mostly requests. It never goes
// through a proxy from the environment (that would hide the real
// destination from the address guard), never follows redirects (a 3xx is a
// failure: the merchant must give the final URL), never sends a request
// again by itself (our schedule decides that), and connects only to
// addresses the guard accepts.
func newHTTPClient(cfg Config) *fasthttp.Client {
	return guardedClient(cfg, &guardedDialer{
		allowPrivate: cfg.AllowPrivate,
		resolver:     net.DefaultResolver,
		dialer:       &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second},
	})
}

// guardedClient is the webhook client over g; tests pass a g whose
// resolver and policy they control.
func guardedClient(cfg Config, g *guardedDialer) *fasthttp.Client {
	return &fasthttp.Client{
		Name: userAgent,
		Dial: func(addr string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
			defer cancel()
			return g.DialContext(ctx, "tcp", addr)
		},
		TLSConfig:              &tls.Config{MinVersion: tls.VersionTLS12},
		MaxConnsPerHost:        cfg.PerHost,
		MaxConnWaitTimeout:     cfg.Timeout,
		MaxIdleConnDuration:    90 * time.Second,
		ReadBufferSize:         maxHeaderRead,
		ReadTimeout:            cfg.Timeout,
		WriteTimeout:           cfg.Timeout,
		MaxResponseBodySize:    maxBodyRead,
		DisablePathNormalizing: true,
		RetryIf:                func(*fasthttp.Request) bool { return false },
	}
}

// maxHeaderRead bounds a response's status line and headers.
const maxHeaderRead = 16 << 10

// result is what one HTTP attempt came to.
type result struct {
	status  int
	body    []byte
	ack     bool
	err     string // why it failed, for the attempt log the merchant reads; empty on success
	detail  string // why it failed in full, for our own log only; empty when err says it all
	kind    string // outcome label for metrics
	latency time.Duration
}

// post sends one signed callback, with its modern headers when h has an
// id, and judges the answer. ctx carries the attempt's deadline.
func post(ctx context.Context, c *fasthttp.Client, target, form string, h modernHeaders, timeout time.Duration) result {
	return postAs(ctx, c, target, form, formType, false, h, timeout)
}

// Content types of the two kinds of delivery.
const (
	formType = "application/x-www-form-urlencoded"
	jsonType = "application/json"
)

// postAs sends body as contentType and judges the answer: the paid
// callback is acknowledged only by a 2xx whose body is "success", an
// endpoint event (any2xx) by any 2xx whatever its body.
func postAs(ctx context.Context, c *fasthttp.Client, target, body, contentType string, any2xx bool, h modernHeaders, timeout time.Duration) result {
	return request(ctx, c, fasthttp.MethodPost, target, body, contentType, any2xx, h, timeout)
}

// request is one attempt by method (POST with its body, or the epay
// door's GET whose parameters are in target) judged as postAs says.
func request(ctx context.Context, c *fasthttp.Client, method, target, body, contentType string, any2xx bool, h modernHeaders, timeout time.Duration) result {
	start := time.Now()
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return result{err: "invalid notify_url: not an http or https URL", kind: "invalid_url"}
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(timeout)
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(target)
	req.Header.SetMethod(method)
	if contentType != "" {
		req.Header.SetContentType(contentType)
	}
	if h.id != "" {
		req.Header.Set(HeaderID, h.id)
		req.Header.Set(HeaderTimestamp, h.timestamp)
		req.Header.Set(HeaderSignature, h.signature)
	}
	if body != "" {
		req.SetBodyString(body)
	}
	err := c.DoDeadline(req, resp, deadline)
	r := result{latency: time.Since(start)}
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		r.status = resp.StatusCode()
		if any2xx && r.status >= 200 && r.status <= 299 {
			r.ack, r.kind = true, "success"
		} else if r.status >= 200 && r.status <= 299 {
			r.kind, r.err = "not_acknowledged", fmt.Sprintf("response body longer than %d bytes is not \"success\"", maxBodyRead)
		} else {
			r.kind, r.err = "http_status", fmt.Sprintf("HTTP %d", r.status)
		}
		return r
	case err != nil:
		f := failure(ctx, err, timeout)
		f.latency = r.latency
		return f
	}
	r.status, r.body = resp.StatusCode(), bytes.Clone(resp.Body())
	switch {
	case any2xx && r.status >= 200 && r.status <= 299, acknowledged(r.status, r.body):
		r.ack, r.kind = true, "success"
	case r.status >= 300 && r.status <= 399:
		r.kind, r.err = "http_status", fmt.Sprintf("HTTP %d: redirects are not followed", r.status)
	case r.status < 200 || r.status > 299:
		r.kind, r.err = "http_status", fmt.Sprintf("HTTP %d", r.status)
	default:
		r.kind, r.err = "not_acknowledged", "response body is not \"success\""
	}
	return r
}

// failure classifies an attempt that got no response: the merchant's text
// says what kind of failure it was, the detail (ours) what exactly.
func failure(ctx context.Context, err error, timeout time.Duration) result {
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return result{kind: "refused", err: refused.Public(), detail: refused.Error()}
	case isTimeout(ctx, err):
		return result{kind: "timeout", err: describe(ctx, err, timeout)}
	}
	return result{kind: "network", err: publicReason(err), detail: describe(ctx, err, timeout)}
}

func isTimeout(ctx context.Context, err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) ||
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
