package provider

import (
	"testing"
	"time"
)

// TestCallerDefaults: a zero field of a family's caller takes the value it
// always took, the defaults pass Validate, and a negative bound is refused.
func TestCallerDefaults(t *testing.T) {
	want := CallerConfig{Timeout: 10 * time.Second, MaxBody: 1 << 20, Backoff: 200 * time.Millisecond}
	if got := (CallerConfig{}).withDefaults(); got != want {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  CallerConfig
		ok   bool
	}{
		{"defaults", CallerDefaults(), true},
		{"retries kept", CallerConfig{Retries: 2}.withDefaults(), true},
		{"negative time-out", CallerConfig{Timeout: -time.Second}, false},
		{"negative body bound", CallerConfig{MaxBody: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
