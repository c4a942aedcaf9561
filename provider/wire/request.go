package wire

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/paygate/gateway/provider"
)

// Request is the request maker provider.Caller.Do and provider.Notifier.Send
// take, for a request that is the same on every attempt: method to target,
// body (nil: none) read afresh each time, and header's name, value pairs
// set on it. A request signed per attempt (a time stamp or nonce in it)
// builds its own.
func Request(method, target string, body []byte, header ...string) func(context.Context) (*http.Request, error) {
	if len(header)%2 != 0 {
		panic("wire.Request: header needs name, value pairs")
	}
	return func(ctx context.Context) (*http.Request, error) {
		var rd io.Reader // nil: a request without a body
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, rd)
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return req, nil
	}
}

// Subject is what the payer sees of an order at a provider that requires a
// title: its description, else "Order <id>", cut to max characters.
func Subject(p provider.Payment, max int) string {
	s := strings.TrimSpace(p.Description)
	if s == "" {
		s = "Order " + p.OrderID
	}
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return s
}
