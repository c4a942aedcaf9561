package command

import (
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	valid := func() Config { c := Defaults(); c.PublicURL = "https://pay.test"; return c }
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", valid(), true},
		{"no public URL", Defaults(), false},
		{"no order TTL", func() Config { c := valid(); c.OrderTTL = 0; return c }(), false},
		{"no create limit", func() Config { c := valid(); c.CreateLimit.PerSecond = 0; return c }(), false},
		{"negative idempotency TTL", func() Config { c := valid(); c.IdempotencyTTL = -time.Second; return c }(), false},
		{"negative review window", func() Config { c := valid(); c.USDTReviewWindow = -time.Second; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	zero := Config{}
	if zero.Validate(); zero.USDTReviewWindow != 0 || zero.IdempotencyTTL != 0 {
		t.Fatalf("Validate filled %+v", zero)
	}
	got := zero.withDefaults()
	if got.USDTReviewWindow != 24*time.Hour || got.IdempotencyTTL != 24*time.Hour {
		t.Fatalf("zero config filled to review %s, idempotency %s; want 24h, 24h", got.USDTReviewWindow, got.IdempotencyTTL)
	}
	if got.OrderTTL != 0 || got.PublicURL != "" {
		t.Fatalf("withDefaults filled what the caller must give: %+v", got)
	}
	d := Defaults()
	if d.OrderTTL != 30*time.Minute || d.OrderRetention != 7*24*time.Hour || d.CreateLimit.PerSecond != 1000 || d.QueryLimit.PerSecond != 200 {
		t.Fatalf("Defaults = %+v, want serve's order times and limits", d)
	}
}
