package operator

import (
	"testing"
	"time"
)

// TestExceptionsDefaults: a zero field takes the value it always took, the
// defaults pass Validate, and Validate refuses (and never fills) a bad or
// missing bound.
func TestExceptionsDefaults(t *testing.T) {
	want := ExceptionsConfig{StuckRefund: 15 * time.Minute, KeepHandled: 8 * 24 * time.Hour, PerSource: 200, RefundLease: 2 * time.Minute}
	if got := (ExceptionsConfig{}).withDefaults(); got != want {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  ExceptionsConfig
		ok   bool
	}{
		{"defaults", ExceptionsDefaults(), true},
		{"zero fields are not filled by Validate", ExceptionsConfig{}, false},
		{"stuck refund below a minute", ExceptionsConfig{StuckRefund: time.Second}.withDefaults(), false},
		{"refund lease below a second", ExceptionsConfig{RefundLease: time.Millisecond}.withDefaults(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
