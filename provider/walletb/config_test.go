package walletb

import (
	"testing"
	"time"
)

// TestWithDefaults: a Config built without Defaults still gets a clock
// (the notification check's skew window reads it), and one it was given
// is kept.
func TestWithDefaults(t *testing.T) {
	fixed := func() time.Time { return time.Unix(1, 0) }
	tests := []struct {
		name string
		cfg  Config
		want time.Time // zero: the system clock
	}{
		{"no clock", Config{}, time.Time{}},
		{"its own clock", Config{Now: fixed}, time.Unix(1, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cfg.withDefaults()
			if got.Now == nil {
				t.Fatal("no clock after withDefaults")
			}
			if !tt.want.IsZero() && !got.Now().Equal(tt.want) {
				t.Fatalf("clock replaced: %v", got.Now())
			}
		})
	}
}
