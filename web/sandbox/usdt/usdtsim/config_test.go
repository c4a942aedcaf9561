package usdtsim

import (
	"testing"
	"time"
)

// TestDefaults: a zero (or negative) field takes the value it always took,
// the defaults pass Validate, and Validate refuses (and never fills) a
// missing one.
func TestDefaults(t *testing.T) {
	for _, in := range []Config{{}, {KeepFor: -time.Hour, Hang: -time.Second}} {
		got := in.withDefaults()
		if got.Now == nil || !got.Genesis.Equal(DefaultGenesis) || got.KeepFor != 30*24*time.Hour || got.Hang != 30*time.Second {
			t.Fatalf("%+v filled to %+v", in, got)
		}
	}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Defaults(), true},
		{"zero fields are not filled by Validate", Config{}, false},
		{"no clock", func() Config { c := Defaults(); c.Now = nil; return c }(), false},
		{"negative hang", func() Config { c := Defaults(); c.Hang = -time.Second; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
