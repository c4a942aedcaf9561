package platform

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// GATEWAY_CLOCK_OFFSET is a signed duration: both signs are read, and a
// value that is not a duration, or is beyond a day, fails Validate naming it.
func TestClockOffsetSetting(t *testing.T) {
	tests := []struct {
		name, env string
		want      time.Duration
		wantErr   string // substring of Validate's error; empty: valid
	}{
		{"unset is the real clock", "", 0, ""},
		{"ahead", "+5m", 5 * time.Minute, ""},
		{"behind", "-5m", -5 * time.Minute, ""},
		{"not a duration", "5 minutes", 0, "GATEWAY_CLOCK_OFFSET"},
		{"beyond a day", "-25h", 0, "clock-offset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("GATEWAY_CLOCK_OFFSET", tt.env)
			}
			cfg := Defaults()
			cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
			err := cfg.Validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate = %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if cfg.ClockOffset != tt.want {
				t.Fatalf("ClockOffset = %s, want %s", cfg.ClockOffset, tt.want)
			}
		})
	}
}

// OffsetClock moves the time it reads by the offset (within the time the
// two reads take), and a nil Clock reads the system clock.
func TestOffsetClock(t *testing.T) {
	for _, off := range []time.Duration{0, 5 * time.Minute, -5 * time.Minute} {
		before := time.Now()
		got := OffsetClock(off).Now().Sub(before)
		if got < off || got > off+time.Minute {
			t.Errorf("offset %s: clock is %s from now", off, got)
		}
	}
	var c Clock
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Errorf("nil Clock is %s from now", d)
	}
}
