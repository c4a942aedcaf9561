package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

const (
	// maxAnswer bounds what is read of an answer: the largest page of
	// orders is far below it.
	maxAnswer = 8 << 20
	// maxWait is the longest pause before a retry; a Retry-After longer
	// than it ends the call with the gateway's error instead of a sleep
	// the caller did not expect.
	maxWait = 30 * time.Second
)

// transport sends one call, and again after a failure worth retrying.
type transport struct {
	cfg Config
}

// request is one call: a GET with its query, or a POST with its JSON body
// and the Idempotency-Key its retries share.
type request struct {
	method string
	path   string
	query  url.Values
	body   []byte
	key    string
}

// envelope is the gateway's success answer.
type envelope struct {
	Code int             `json:"code"`
	Msg  string          `json:"msg"`
	Data json.RawMessage `json:"data"`
}

// postJSON is a signed POST of params as a flat JSON object, with a fresh
// Idempotency-Key.
func postJSON(path string, params map[string]string) (request, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return request{}, fmt.Errorf("paygate: encode %s: %w", path, err)
	}
	key, err := newIdempotencyKey()
	if err != nil {
		return request{}, err
	}
	return request{method: http.MethodPost, path: path, body: body, key: key}, nil
}

// newIdempotencyKey is 128 random bits: unique per call, the same on the
// call's retries.
func newIdempotencyKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("paygate: idempotency key: %w", err)
	}
	return "pg-go-" + hex.EncodeToString(b[:]), nil
}

// do sends r until it succeeds, fails for good or runs out of retries, and
// decodes the answer's data into out.
func (t transport) do(ctx context.Context, r request, out any) error {
	for attempt := 0; ; attempt++ {
		data, err := t.once(ctx, r)
		if err == nil {
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("paygate: decode %s answer: %w", r.path, err)
			}
			return nil
		}
		wait, retry := t.retryable(err, attempt)
		if !retry {
			return err
		}
		if serr := sleep(ctx, wait); serr != nil {
			return fmt.Errorf("paygate: %s: no retry (%w) after: %w", r.path, serr, err)
		}
	}
}

// retryable says whether err is worth another attempt and after how long.
// The caller's own cancellation ends the pause before it (sleep).
func (t transport) retryable(err error, attempt int) (time.Duration, bool) {
	if attempt >= t.cfg.Retries {
		return 0, false
	}
	wait := t.backoff(attempt)
	var apiErr *Error
	if errors.As(err, &apiErr) {
		if !apiErr.Temporary() {
			return 0, false
		}
		wait = max(wait, apiErr.RetryAfter)
	}
	if wait > maxWait {
		return 0, false
	}
	return wait, true
}

// backoff is Backoff doubled per attempt, less up to a fifth at random so
// that clients refused together do not come back together.
func (t transport) backoff(attempt int) time.Duration {
	d := t.cfg.Backoff << min(attempt, 10)
	return d - time.Duration(mrand.Int64N(int64(d)/5+1))
}

func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// once is one attempt within Config.Timeout: the answer's data, or an
// *Error for a refusal, or a transport error.
func (t transport) once(ctx context.Context, r request) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	req, err := t.httpRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("paygate: %s %s: %w", r.method, r.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("paygate: read %s answer: %w", r.path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, apiError(resp.StatusCode, resp.Header, body)
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("paygate: %s answered no JSON: %w", r.path, err)
	}
	if env.Code != 0 {
		return nil, &Error{Status: resp.StatusCode, Message: env.Msg}
	}
	return env.Data, nil
}

func (t transport) httpRequest(ctx context.Context, r request) (*http.Request, error) {
	u := t.cfg.BaseURL + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("paygate: %s %s: %w", r.method, r.path, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.key != "" {
		req.Header.Set("Idempotency-Key", r.key)
	}
	return req, nil
}
