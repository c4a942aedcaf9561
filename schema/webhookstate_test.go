package schema

import (
	"strconv"
	"testing"
	"time"
)

// TestWebhookStateFrom: the next attempt time is shown while a delivery
// waits, not while an attempt runs (unless its lease ran out: a crashed
// process), and never for a finished one.
func TestWebhookStateFrom(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).UnixMilli(), 10) }
	tests := []struct {
		name     string
		h        map[string]string
		next     string
		inFlight bool
		queued   bool
	}{
		{"waiting for a retry", map[string]string{"st": "pending", "n": "2", "due": ms(90 * time.Second)}, "2026-11-23T12:01:30Z", false, false},
		{"attempt running", map[string]string{"st": "pending", "n": "1", "due": ms(5 * time.Second), "lease": "t1"}, "", true, false},
		{"lease of a crashed process", map[string]string{"st": "pending", "n": "1", "due": ms(-time.Second), "lease": "t1"}, "2026-11-23T11:59:59Z", false, false},
		{"resend queued", map[string]string{"st": "pending", "n": "3", "due": ms(0), "man": "dead"}, "2026-11-23T12:00:00Z", false, true},
		{"delivered", map[string]string{"st": "delivered", "n": "1", "due": ms(time.Minute)}, "", false, false},
		{"dead", map[string]string{"st": "dead", "n": "6"}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := WebhookStateFrom("P1", tt.h, now)
			if s.NextAttemptAt != tt.next || s.InFlight != tt.inFlight || s.ResendQueued != tt.queued ||
				s.State != tt.h["st"] || strconv.Itoa(s.Automatic) != tt.h["n"] || s.EventID != "evt_paid_P1" {
				t.Fatalf("%+v, want next %q in flight %v queued %v", s, tt.next, tt.inFlight, tt.queued)
			}
		})
	}
	if WebhookStateFrom("P1", nil, now) != nil {
		t.Error("an order without a delivery has a state")
	}
}
