package merchant

import (
	"context"
	"testing"
	"time"
)

// TestRotationTimes: each rotation stamps its own credential's time, and
// only its own; a new account has none (its keys date from CreatedAt).
func TestRotationTimes(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	a, err := s.Create(ctx, NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if !a.KeyRotatedAt.IsZero() || !a.QueryKeyRotatedAt.IsZero() || !a.WebhookSecretRotatedAt.IsZero() {
		t.Fatalf("new account has rotation times: %+v", a)
	}
	for _, tc := range []struct {
		name   string
		rotate func() (*Account, error)
		stamp  func(*Account) time.Time
	}{
		{"api key", func() (*Account, error) { return s.RotateKey(ctx, a.AppID, time.Hour) }, func(a *Account) time.Time { return a.KeyRotatedAt }},
		{"query key", func() (*Account, error) { return s.RotateQueryKeyGrace(ctx, a.AppID, 0) }, func(a *Account) time.Time { return a.QueryKeyRotatedAt }},
		{"webhook secret", func() (*Account, error) { return s.RotateWebhookSecret(ctx, a.AppID, time.Hour) },
			func(a *Account) time.Time { return a.WebhookSecretRotatedAt }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := s.Get(ctx, a.AppID)
			if err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Hour)
			r, err := tc.rotate()
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.stamp(r); !got.Equal(now) {
				t.Fatalf("rotated at %v, want %v", got, now)
			}
			stamps := func(x *Account) []time.Time {
				return []time.Time{x.KeyRotatedAt, x.QueryKeyRotatedAt, x.WebhookSecretRotatedAt}
			}
			changed := 0
			for i, v := range stamps(r) {
				if !v.Equal(stamps(before)[i]) {
					changed++
				}
			}
			if changed != 1 {
				t.Fatalf("%d rotation times changed, want 1: %+v", changed, stamps(r))
			}
		})
	}
}
