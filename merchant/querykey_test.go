package merchant

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
)

// TestQueryKeyGrace: after a rotation with a grace period the old query
// key keeps reading through the Directory until the grace ends and not a
// moment after; the new one reads at once; a rotation without grace (a
// leaked key) stops the old one, and any earlier one, at once.
func TestQueryKeyGrace(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	now := start
	s.now = func() time.Time { return now }
	a, _ := s.Create(ctx, NewAccount{Name: "shop"})
	r, err := s.RotateQueryKeyGrace(ctx, a.AppID, 24*time.Hour)
	if err != nil || r.QueryKey == a.QueryKey || r.PrevQueryKey != a.QueryKey {
		t.Fatalf("rotate: %+v %v", r, err)
	}
	d := NewDirectory(s, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Hour)
	tests := []struct {
		name string
		at   time.Duration
		key  string
		ok   bool
	}{
		{"new key at once", 0, r.QueryKey, true},
		{"old key at once", 0, a.QueryKey, true},
		{"old key within the grace", 24*time.Hour - time.Second, a.QueryKey, true},
		{"old key when the grace ends", 24 * time.Hour, a.QueryKey, false},
		{"old key after the grace", 25 * time.Hour, a.QueryKey, false},
		{"new key after the grace", 25 * time.Hour, r.QueryKey, true},
		{"a wrong key within the grace", time.Hour, "not-a-key", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = start.Add(tt.at)
			_, err := d.AuthQuery(ctx, a.AppID, tt.key)
			if tt.ok != (err == nil) {
				t.Fatalf("at +%s: %v, want ok %v", tt.at, err, tt.ok)
			}
			var pe *platform.Error
			if !tt.ok && (!errors.As(err, &pe) || pe.Kind != platform.KindInvalidKey) {
				t.Fatalf("refused with %v, want %s", err, platform.KindInvalidKey)
			}
		})
	}

	now = start.Add(time.Hour)
	r2, err := s.RotateQueryKeyGrace(ctx, a.AppID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{a.QueryKey, r.QueryKey} {
		if r2.QueryKeyMatches(old, now) {
			t.Fatal("a rotation without grace left an older query key working")
		}
	}
	if !r2.QueryKeyMatches(r2.QueryKey, now) || r2.QueryKeyMatches("", now) {
		t.Fatal("the current key or the empty key judged wrongly")
	}
}
