package wire

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Conn is the HTTP side every usdt client holds: its client, the bound of
// one call, and its configuration's problem, which every call answers
// (callers validate at start-up; a client built anyway never calls out).
type Conn struct {
	client  *http.Client
	timeout time.Duration
	err     error
}

// NewConn is a connection over httpClient (nil: a default client); cfgErr
// is what the client's Config.Validate said.
func NewConn(httpClient *http.Client, timeout time.Duration, cfgErr error) Conn {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	return Conn{client: httpClient, timeout: timeout, err: cfgErr}
}

// Err is the configuration's problem, if any.
func (c Conn) Err() error { return c.err }

// Do is the package's Do over this connection.
func (c Conn) Do(ctx context.Context, newReq func(context.Context) (*http.Request, error)) (Answer, error) {
	if c.err != nil {
		return Answer{}, c.err
	}
	return Do(ctx, c.client, c.timeout, newReq)
}

// Hash readies a call about a transaction: a configuration problem or a
// hash not of the chain's form (valid) refuses it; the hash is answered in
// lower case, as the chains' nodes know it.
func (c Conn) Hash(chain, what, hash string, valid func(string) bool) (string, error) {
	if c.err != nil {
		return "", c.err
	}
	if !valid(hash) {
		return "", fmt.Errorf("%s: %q is not a transaction %s", chain, hash, what)
	}
	return strings.ToLower(hash), nil
}
