package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// attempt is what a fake gateway saw of one request.
type attempt struct {
	key, userAgent, contentType string
}

// fakeGateway answers each request with the next of answers (the last
// repeats) and records what it saw. An answer with status 0 drops the
// connection (a transport failure); with status -1 it waits for the
// request's end (a time-out).
type fakeGateway struct {
	mu       sync.Mutex
	answers  []fakeAnswer
	attempts []attempt
}

type fakeAnswer struct {
	status     int
	body       string
	retryAfter string
}

func (f *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	a := f.answers[min(len(f.attempts), len(f.answers)-1)]
	f.attempts = append(f.attempts, attempt{r.Header.Get("Idempotency-Key"), r.Header.Get("User-Agent"), r.Header.Get("Content-Type")})
	f.mu.Unlock()
	switch a.status {
	case 0:
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return
	case -1:
		<-r.Context().Done()
		return
	}
	if a.retryAfter != "" {
		w.Header().Set("Retry-After", a.retryAfter)
	}
	w.WriteHeader(a.status)
	w.Write([]byte(a.body))
}

func (f *fakeGateway) seen() []attempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]attempt(nil), f.attempts...)
}

const createdBody = `{"code":0,"msg":"success","data":{"paymentId":"p1","orderId":"p1","status":1,"statusString":"ready","amount":"1.00"}}`

func errBody(status, kind string) string {
	return `{"code":` + status + `,"error":"` + kind + `","msg":"refused"}`
}

// TestRetries: a POST is tried again after a transport failure, a 5xx or a
// 429 with the same Idempotency-Key, and never after a refusal.
func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		answers  []fakeAnswer
		retries  int
		attempts int
		kind     string // the *Error's kind; "" a success, "-" another error
	}{
		{"503 then success", []fakeAnswer{{503, errBody("503", "unavailable"), ""}, {200, createdBody, ""}}, 2, 2, ""},
		{"dropped connection then success", []fakeAnswer{{0, "", ""}, {200, createdBody, ""}}, 2, 2, ""},
		{"429 with Retry-After then success", []fakeAnswer{{429, errBody("429", "rate_limited"), "0"}, {200, createdBody, ""}}, 2, 2, ""},
		{"idempotency in progress then success", []fakeAnswer{{409, errBody("409", "idempotency_in_progress"), ""}, {200, createdBody, ""}}, 2, 2, ""},
		{"refusal not retried", []fakeAnswer{{401, errBody("401", "invalid_sign"), ""}}, 2, 1, "invalid_sign"},
		{"conflict not retried", []fakeAnswer{{409, errBody("409", "idempotency_mismatch"), ""}}, 2, 1, "idempotency_mismatch"},
		{"retries run out", []fakeAnswer{{500, errBody("500", "internal_error"), ""}}, 2, 3, "internal_error"},
		{"no retries asked", []fakeAnswer{{500, errBody("500", "internal_error"), ""}}, -1, 1, "internal_error"},
		{"Retry-After beyond the longest pause", []fakeAnswer{{429, errBody("429", "rate_limited"), "3600"}}, 2, 1, "rate_limited"},
		{"a proxy's page", []fakeAnswer{{502, "<html>bad gateway</html>", ""}}, 1, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeGateway{answers: tt.answers}
			srv := httptest.NewServer(f)
			defer srv.Close()
			c := testClient(t, srv.URL, func(cfg *Config) { cfg.Retries = tt.retries })
			// A pause of the Retry-After asked would outlast the test: fail instead.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := c.Create(ctx, CreateRequest{Amount: "1.00", Currency: "USD", PaymentMethod: "wallet_a"})
			var apiErr *Error
			switch {
			case tt.kind == "" && tt.answers[len(tt.answers)-1].status == 200:
				if err != nil || out.PaymentID != "p1" {
					t.Fatalf("got %+v, %v", out, err)
				}
			case errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("err = %v: the call outlasted the test's bound", err)
			case !errors.As(err, &apiErr) || apiErr.Kind != tt.kind || apiErr.Status != tt.answers[len(tt.answers)-1].status:
				t.Fatalf("err = %#v, want kind %q", err, tt.kind)
			}
			seen := f.seen()
			if len(seen) != tt.attempts {
				t.Fatalf("%d attempts, want %d", len(seen), tt.attempts)
			}
			for _, a := range seen {
				if a.key == "" || a.key != seen[0].key {
					t.Fatalf("Idempotency-Keys %+v: want one, the same on every attempt", seen)
				}
				if a.userAgent != "paygate-go/"+Version || a.contentType != "application/json" {
					t.Fatalf("headers %+v", a)
				}
			}
		})
	}
}

// TestEachCallItsOwnKey: two creates are two keys (one would replay the
// other's answer).
func TestEachCallItsOwnKey(t *testing.T) {
	f := &fakeGateway{answers: []fakeAnswer{{200, createdBody, ""}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := testClient(t, srv.URL, nil)
	for range 2 {
		if _, err := c.Create(context.Background(), CreateRequest{Amount: "1", Currency: "USD", PaymentMethod: "wallet_a"}); err != nil {
			t.Fatal(err)
		}
	}
	if s := f.seen(); s[0].key == s[1].key {
		t.Fatalf("two creates sent the same key %q", s[0].key)
	}
}

// TestTimeout: an attempt that outlives Config.Timeout is abandoned and
// tried again; the caller's own cancellation is not retried.
func TestTimeout(t *testing.T) {
	f := &fakeGateway{answers: []fakeAnswer{{-1, "", ""}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := testClient(t, srv.URL, func(cfg *Config) { cfg.Timeout, cfg.Retries = 50*time.Millisecond, 1 })
	// Without the attempt's own time-out, the test's ends the only attempt.
	bound, cancelBound := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelBound()
	_, err := c.Order(bound, "p1")
	if !errors.Is(err, context.DeadlineExceeded) || len(f.seen()) != 2 {
		t.Fatalf("err = %v after %d attempts, want a deadline after 2", err, len(f.seen()))
	}
	// The caller's cancellation ends the pause before a retry too: with an
	// backoff of 25 s, the call returns once cancelled, not 20-25 s later.
	ctx, cancel := context.WithCancel(context.Background())
	f2 := &fakeGateway{answers: []fakeAnswer{{503, errBody("503", "unavailable"), ""}}}
	srv2 := httptest.NewServer(f2)
	defer srv2.Close()
	c2 := testClient(t, srv2.URL, func(cfg *Config) { cfg.Retries, cfg.Backoff = 3, 25*time.Second })
	done := make(chan error, 1)
	go func() { _, err := c2.Order(ctx, "p1"); done <- err }()
	for len(f2.seen()) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || len(f2.seen()) != 1 {
			t.Fatalf("cancelled: err = %v after %d attempts", err, len(f2.seen()))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pause before a retry outlived the caller's cancellation")
	}
}

// TestErrorsAs: the gateway's refusal is an *Error whose Kind and Status
// are the body's and the answer's.
func TestErrorsAs(t *testing.T) {
	f := &fakeGateway{answers: []fakeAnswer{{404, errBody("404", "order_not_found"), ""}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	_, err := testClient(t, srv.URL, nil).Order(context.Background(), "nope")
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Kind != KindOrderNotFound || apiErr.Status != 404 || apiErr.Message != "refused" {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "order_not_found") {
		t.Fatalf("message %q names no kind", err)
	}
}

// TestConfigValidate: what a Config lacks is said before any call.
func TestConfigValidate(t *testing.T) {
	ok := Config{BaseURL: "https://pay.example", AppID: "1001", APIKey: "k"}
	tests := []struct {
		name string
		edit func(*Config)
		bad  bool
	}{
		{"complete", func(*Config) {}, false},
		{"query key only", func(c *Config) { c.APIKey, c.QueryKey = "", "q" }, false},
		{"no base URL", func(c *Config) { c.BaseURL = "" }, true},
		{"base URL without scheme", func(c *Config) { c.BaseURL = "pay.example" }, true},
		{"base URL of another scheme", func(c *Config) { c.BaseURL = "ftp://pay.example" }, true},
		{"base URL with a query", func(c *Config) { c.BaseURL = "https://pay.example/?x=1" }, true},
		{"no appid", func(c *Config) { c.AppID = "" }, true},
		{"no key at all", func(c *Config) { c.APIKey = "" }, true},
		{"negative timeout", func(c *Config) { c.Timeout = -1 }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			if err := c.Validate(); (err != nil) != tt.bad {
				t.Fatalf("Validate() = %v, want error %v", err, tt.bad)
			}
			if _, err := New(c); (err != nil) != tt.bad {
				t.Fatalf("New() = %v, want error %v", err, tt.bad)
			}
		})
	}
}
