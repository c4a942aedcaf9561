// Package wire is the one HTTP exchange the usdt clients share: a bounded
// time, a bounded answer, and a backend failure told apart from an answer.
// The reviewer decides "backend down" from any error that is not
// usdt.ErrNotFound, so every failure here must stay an error and never
// become a "not found".
package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MaxBody bounds every answer: a transaction, a block header or one page of
// history is far below it.
const MaxBody = 4 << 20

// ErrStatus marks an answer with a 5xx status: the backend is down.
var ErrStatus = errors.New("backend answered with a server error")

// Answer is an HTTP answer read whole.
type Answer struct {
	Status int
	Body   []byte
}

// Do sends req (built by newReq under the call's own deadline) and reads the
// answer. A network error, a time-out and a 5xx status are errors; any other
// status is an Answer for the caller to read.
func Do(ctx context.Context, client *http.Client, timeout time.Duration, newReq func(context.Context) (*http.Request, error)) (Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := newReq(ctx)
	if err != nil {
		return Answer{}, fmt.Errorf("build request: %w", err)
	}
	res, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Answer{}, fmt.Errorf("no answer within %v: %w", timeout, ctx.Err())
		}
		return Answer{}, fmt.Errorf("send: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxBody+1))
	switch {
	case err != nil:
		return Answer{}, fmt.Errorf("read answer: %w", err)
	case len(body) > MaxBody:
		return Answer{}, fmt.Errorf("answer over %d bytes", MaxBody)
	case res.StatusCode >= 500:
		return Answer{}, fmt.Errorf("HTTP %d: %w", res.StatusCode, ErrStatus)
	}
	return Answer{Status: res.StatusCode, Body: body}, nil
}

// CheckURL reports a base URL that is not absolute http(s).
func CheckURL(name, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q is not an absolute http(s) URL", name, s)
	}
	return nil
}

// CheckTimeout reports a bound per call that is not positive.
func CheckTimeout(name string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s time-out %v must be positive", name, d)
	}
	return nil
}

// Trim is a base URL without its trailing slashes, so paths append cleanly.
func Trim(s string) string { return strings.TrimRight(strings.TrimSpace(s), "/") }
