package admin

import "testing"

// TestDefaults: an unset clock takes the system's as it always did, the
// defaults pass Validate, and Validate refuses (and never fills) a missing
// clock.
func TestDefaults(t *testing.T) {
	if (Config{Secure: true}).withDefaults().Now == nil {
		t.Fatal("an unset clock was not filled")
	}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Defaults(), true},
		{"no clock", Config{Secure: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
