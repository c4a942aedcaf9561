package chaos

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReasonOf classifies the errors a real HTTP client returns on
// loopback, as the load sees them.
func TestReasonOf(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang":
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		case "/reset":
			reset(w)
		case "/close":
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
		case "/short":
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte("cut"))
		}
	}))
	defer srv.Close()
	defer close(hang) // before the server's Close, which waits for handlers
	closed := closedPort(t)
	client := &http.Client{Timeout: 200 * time.Millisecond}
	get := func(u string) error {
		t.Helper()
		res, err := client.Get(u)
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		defer res.Body.Close()
		var buf [256]byte
		for {
			if _, err := res.Body.Read(buf[:]); err != nil {
				if err.Error() == "EOF" {
					return nil
				}
				return fmt.Errorf("read the answer: %w", err)
			}
		}
	}
	cases := []struct {
		name       string
		err        error
		want       string
		wantStatus int
	}{
		{"answered 503", &statusError{step: "create", status: 503, body: `{"error":"busy"}`}, "status 503", 503},
		{"answered 429, wrapped", fmt.Errorf("pay: %w", &statusError{step: "pay", status: 429}), "status 429", 429},
		{"client time-out", get(srv.URL + "/hang"), ReasonTimeout, 0},
		{"nothing listening", get("http://" + closed), ReasonRefused, 0},
		{"reset", get(srv.URL + "/reset"), ReasonReset, 0},
		{"closed without an answer", get(srv.URL + "/close"), ReasonEOF, 0},
		{"answer cut short", get(srv.URL + "/short"), ReasonEOF, 0},
		{"anything else", fmt.Errorf("pay: still not logged in"), ReasonOther, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("the request did not fail")
			}
			got, status := reasonOf(tc.err)
			if got != tc.want || status != tc.wantStatus {
				t.Errorf("reasonOf(%v) = %q %d, want %q %d", tc.err, got, status, tc.want, tc.wantStatus)
			}
		})
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestReasonsLine: most frequent first, ties by name.
func TestReasonsLine(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]int
		want string
	}{
		{"none", nil, "none"},
		{"ordered", map[string]int{"query time-out": 4, "create status 500": 120, "create connection refused": 4},
			"create status 500 120, create connection refused 4, query time-out 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := reasonsLine(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if !strings.Contains(snippet(strings.Repeat("x", 300)), "…") {
		t.Error("a long body is not cut")
	}
}
