package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of a Config's zero fields.
const (
	DefaultTimeout = 30 * time.Second
	DefaultRetries = 2
)

// Config is what a Client needs: where the gateway is and the merchant's
// three credentials (SPEC.md, Authentication). Zero values take the
// defaults above; Validate says what is missing.
type Config struct {
	// BaseURL is the gateway's address, such as https://pay.example.com.
	BaseURL string
	// AppID identifies the merchant (appid).
	AppID string
	// APIKey signs creates, cancels and refunds and verifies the MD5 sign
	// of webhooks. It is never sent.
	APIKey string
	// QueryKey reads orders and balances (the key parameter).
	QueryKey string
	// ClientIP is the create's clientip when a request names none: the
	// address the gateway sees this server's requests come from.
	ClientIP string
	// HTTPClient sends the requests; nil is a client of its own. Its
	// Timeout, if any, applies besides Config.Timeout.
	HTTPClient *http.Client
	// Timeout bounds each attempt (not the retries' pauses); 0 is
	// DefaultTimeout.
	Timeout time.Duration
	// Retries is how many times a failed call is tried again; 0 is
	// DefaultRetries, a negative number none.
	Retries int
	// Backoff is the first pause before a retry, doubled at each (with
	// jitter); 0 is 200 ms.
	Backoff time.Duration
}

// Validate says what a Config lacks, before a call would fail at the
// gateway with a less helpful answer.
func (c Config) Validate() error {
	var errs []error
	if c.BaseURL == "" {
		errs = append(errs, errors.New("BaseURL is required"))
	} else if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("BaseURL %q is not an http(s) address", c.BaseURL))
	} else if u.RawQuery != "" || u.Fragment != "" {
		errs = append(errs, fmt.Errorf("BaseURL %q has a query or fragment", c.BaseURL))
	}
	if c.AppID == "" {
		errs = append(errs, errors.New("AppID is required"))
	}
	if c.APIKey == "" && c.QueryKey == "" {
		errs = append(errs, errors.New("APIKey or QueryKey is required"))
	}
	if c.Timeout < 0 || c.Backoff < 0 {
		errs = append(errs, errors.New("Timeout and Backoff cannot be negative"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("client config: %w", err)
	}
	return nil
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.Backoff == 0 {
		c.Backoff = 200 * time.Millisecond
	}
	return c
}

// Client calls one merchant's side of the gateway. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	t   transport
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Client{cfg: cfg, t: transport{cfg: cfg}}, nil
}
