package wire

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/paygate/gateway/provider"
)

// Every attempt gets the same request, its body whole again.
func TestRequest(t *testing.T) {
	newReq := Request("POST", "http://x.example/p", []byte("a=1"), "content-type", "text/plain", "X-Key", "k")
	for range 2 {
		req, err := newReq(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(req.Body)
		if string(b) != "a=1" || req.ContentLength != 3 || req.Header.Get("Content-Type") != "text/plain" || req.Header.Get("X-Key") != "k" {
			t.Fatalf("request %+v body %q", req, b)
		}
	}
	req, err := Request("GET", "http://x.example/", nil)(context.Background())
	if err != nil || req.Body != nil || req.ContentLength != 0 {
		t.Fatalf("GET: %+v, %v", req, err)
	}
	if _, err := Request("GET", "::", nil)(context.Background()); err == nil {
		t.Fatal("bad URL gave a request")
	}
}

func TestSubject(t *testing.T) {
	cases := []struct {
		desc string
		max  int
		want string
	}{
		{"  Order 42 & more ", 128, "Order 42 & more"},
		{"", 128, "Order P-1"},
		{"   ", 128, "Order P-1"},
		{strings.Repeat("é", 10), 5, strings.Repeat("é", 5)},
		{"", 7, "Order P"},
	}
	for _, c := range cases {
		if got := Subject(provider.Payment{OrderID: "P-1", Description: c.desc}, c.max); got != c.want {
			t.Errorf("Subject(%q, %d) = %q, want %q", c.desc, c.max, got, c.want)
		}
	}
}
