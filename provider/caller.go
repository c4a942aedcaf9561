package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/internal/config"
)

// Metrics are the provider calls' latency and errors, by family and call;
// one set per process, shared by every adapter.
type Metrics struct {
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

// NewMetrics registers the provider call metrics on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gateway_provider_call_duration_seconds", Help: "Time of calls to payment providers, by family and call.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"provider", "call"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_provider_call_errors_total", Help: "Failed calls to payment providers, by family, call and kind (timeout, network, status, body).",
		}, []string{"provider", "call", "kind"}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.errors} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register provider metrics: %w", err)
		}
	}
	return m, nil
}

// CallerConfig bounds the calls to one provider. In a family's JSON it is
// "caller": {"timeout": "10s", "max_body": 1048576, "retries": 2,
// "backoff": "200ms"}; a zero field takes the caller's default.
type CallerConfig struct {
	Timeout time.Duration // per attempt
	MaxBody int64         // bytes of an answer we read at most
	Retries int           // further attempts of an idempotent call
	Backoff time.Duration // before the first retry; doubles after each
}

// callerJSON is CallerConfig as operators write it: snake_case names and
// durations as text.
type callerJSON struct {
	Timeout config.Duration `json:"timeout,omitempty"`
	MaxBody int64           `json:"max_body,omitempty"`
	Retries int             `json:"retries,omitempty"`
	Backoff config.Duration `json:"backoff,omitempty"`
}

// UnmarshalJSON reads the operator's form, refusing unknown fields as the
// family's own decoder does (a custom decoder does not inherit that).
func (c *CallerConfig) UnmarshalJSON(b []byte) error {
	w := callerJSON{Timeout: config.Duration(c.Timeout), MaxBody: c.MaxBody, Retries: c.Retries, Backoff: config.Duration(c.Backoff)}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("caller: %w", err)
	}
	*c = CallerConfig{Timeout: w.Timeout.D(), MaxBody: w.MaxBody, Retries: w.Retries, Backoff: w.Backoff.D()}
	return nil
}

// MarshalJSON writes the operator's form.
func (c CallerConfig) MarshalJSON() ([]byte, error) {
	return json.Marshal(callerJSON{Timeout: config.Duration(c.Timeout), MaxBody: c.MaxBody, Retries: c.Retries, Backoff: config.Duration(c.Backoff)})
}

// Validate lists the bounds that cannot be used.
func (c CallerConfig) Validate() error {
	if c.Timeout < 0 || c.MaxBody < 0 || c.Retries < 0 || c.Backoff < 0 {
		return errors.New("caller: time-out, body bound, retries and back-off must not be negative")
	}
	return nil
}

// CallerDefaults are the bounds of a family whose JSON names none.
func CallerDefaults() CallerConfig {
	return CallerConfig{Timeout: 10 * time.Second, MaxBody: 1 << 20, Backoff: 200 * time.Millisecond}
}

// withDefaults fills what is unset from CallerDefaults: a zero field in a
// family's JSON means the default.
func (c CallerConfig) withDefaults() CallerConfig {
	d := CallerDefaults()
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	if c.MaxBody <= 0 {
		c.MaxBody = d.MaxBody
	}
	if c.Retries < 0 {
		c.Retries = d.Retries
	}
	if c.Backoff <= 0 {
		c.Backoff = d.Backoff
	}
	return c
}

// Caller is the HTTP client an adapter talks to its provider through: every
// attempt has a time-out, every answer a size bound, only idempotent calls
// are sent again, and each call is timed and its failures counted. It never
// logs a request or an answer: they carry credentials and payer data.
type Caller struct {
	family string
	cfg    CallerConfig
	client *http.Client
	m      *Metrics
	log    *slog.Logger
}

// NewCaller builds the caller of one family; client nil is a client with
// a connection pool of the caller's own (newTransport).
func NewCaller(family string, cfg CallerConfig, client *http.Client, m *Metrics, log *slog.Logger) *Caller {
	if client == nil {
		client = &http.Client{Transport: newTransport()}
	}
	return &Caller{family: family, cfg: cfg.withDefaults(), client: client, m: m, log: log}
}

// idlePerHost is how many idle connections a caller keeps to its
// provider's host: about as many as creates run at once.
const idlePerHost = 64

// newTransport is what Go's default transport is (proxy from the
// environment, dial and handshake time-outs, HTTP/2 where offered) but for
// its idle connections: the default keeps two per host, so under load
// nearly every call to a provider would dial, and live shake hands over
// TLS, anew.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   idlePerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Answer is a provider's HTTP answer, its body read whole (within MaxBody).
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// errBodyTooLarge marks an answer over MaxBody.
var errBodyTooLarge = errors.New("answer body over the size bound")

// Do sends the request made by newReq (called again for each attempt, so a
// body can be re-read) and returns the answer. Idempotent calls are retried
// on network errors, time-outs and 5xx answers; anything else is final. A
// 5xx answer that is final is returned with ErrUnavailable.
func (c *Caller) Do(ctx context.Context, call string, idempotent bool, newReq func(context.Context) (*http.Request, error)) (Answer, error) {
	attempts := 1
	if idempotent {
		attempts += c.cfg.Retries
	}
	wait := c.cfg.Backoff
	var lastErr error
	for i := range attempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return Answer{}, fmt.Errorf("%s %s: %w", c.family, call, errors.Join(ErrUnavailable, ctx.Err(), lastErr))
			case <-time.After(wait):
			}
			wait *= 2
		}
		a, kind, err := c.once(ctx, call, newReq)
		if err == nil {
			return a, nil
		}
		c.m.errors.WithLabelValues(c.family, call, kind).Inc()
		lastErr = err
		if kind == "body" || kind == "request" {
			break
		}
	}
	return Answer{}, fmt.Errorf("%s %s: %w", c.family, call, errors.Join(ErrUnavailable, lastErr))
}

// once is one attempt, and the kind of its failure for the metric.
func (c *Caller) once(ctx context.Context, call string, newReq func(context.Context) (*http.Request, error)) (Answer, string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := newReq(ctx)
	if err != nil {
		return Answer{}, "request", fmt.Errorf("build request: %w", err)
	}
	start := time.Now()
	res, err := c.client.Do(req)
	if err != nil {
		c.m.duration.WithLabelValues(c.family, call).Observe(time.Since(start).Seconds())
		if ctx.Err() != nil {
			return Answer{}, "timeout", fmt.Errorf("no answer within %v: %w", c.cfg.Timeout, errors.Join(ErrTimeout, err))
		}
		return Answer{}, "network", errors.Join(ErrTransport, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, c.cfg.MaxBody+1))
	c.m.duration.WithLabelValues(c.family, call).Observe(time.Since(start).Seconds())
	switch {
	case err != nil && ctx.Err() != nil:
		return Answer{}, "timeout", fmt.Errorf("answer not read within %v: %w", c.cfg.Timeout, errors.Join(ErrTimeout, err))
	case err != nil:
		return Answer{}, "network", fmt.Errorf("read answer: %w", errors.Join(ErrTransport, err))
	case int64(len(body)) > c.cfg.MaxBody:
		return Answer{}, "body", errBodyTooLarge
	case res.StatusCode >= 500:
		return Answer{}, "status", fmt.Errorf("answered HTTP %d: %w", res.StatusCode, ErrHTTP5xx)
	}
	return Answer{Status: res.StatusCode, Header: res.Header, Body: body}, "", nil
}
