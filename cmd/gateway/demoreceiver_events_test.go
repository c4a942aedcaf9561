package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDemoReceiverEvents: an endpoint event is verified with the secrets
// of the demo merchant's endpoints (not the merchant's webhook secret) and
// answered 204 only when its signature verifies.
func TestDemoReceiverEvents(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	body := `{"id":"evt_1","type":"order.expired","created_at":"2026-11-28T10:00:00Z","version":"2026-11-28","data":{}}`
	ts := strconv.FormatInt(now.Unix(), 10)
	tests := []struct {
		name      string
		endpoints endpointSecrets
		body      string
		want      string
		code      int
	}{
		{"signed with the endpoint's secret", secretsOf(rcvSecret), body, "endpoint secret): verified", 204},
		{"during a rotation, the old one", secretsOf(rcvOther, rcvSecret), body, "endpoint secret): verified", 204},
		{"signed with another secret", secretsOf(rcvOther), body, "no v1 signature matches", 400},
		{"a changed body", secretsOf(rcvSecret), strings.Replace(body, "expired", "paid", 1), "no v1 signature matches", 400},
		{"no endpoints read", nil, body, "reads no endpoints", 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &receiver{endpoints: tc.endpoints, out: &out, now: func() time.Time { return now }}
			req := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("webhook-id", "evt_1")
			req.Header.Set("webhook-timestamp", ts)
			req.Header.Set("webhook-signature", hmacEntry(t, rcvSecret, "evt_1", ts, body))
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			if !strings.Contains(out.String(), tc.want) || rec.Code != tc.code {
				t.Fatalf("answered %d, printed:\n%s\nwant %q and %d", rec.Code, out.String(), tc.want, tc.code)
			}
		})
	}
}

func secretsOf(s ...string) endpointSecrets {
	return func(context.Context, string, time.Time) ([]string, error) { return s, nil }
}
