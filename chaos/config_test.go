package chaos

import (
	"testing"
	"time"
)

// TestDefaults: the defaults are the flags' old defaults and pass Validate
// once the caller names the binary and data directory; Validate refuses (and
// never fills) a zero or bad field.
func TestDefaults(t *testing.T) {
	d := Defaults()
	if d.Root != "." || d.Settle != 90*time.Second || !d.PlantLoss || d.ClientTimeout != DefaultClientTimeout ||
		d.Rates != DefaultRates || d.Floors != DefaultFloors {
		t.Fatalf("Defaults = %+v", d)
	}
	named := func(c Config) Config { c.Gateway, c.DataDir = "bin/gateway", "/tmp/chaos"; return c }
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults with binary and data", named(Defaults()), true},
		{"defaults without binary", Defaults(), false},
		{"zero settle", func() Config { c := named(Defaults()); c.Settle = 0; return c }(), false},
		{"zero client timeout", func() Config { c := named(Defaults()); c.ClientTimeout = 0; return c }(), false},
		{"zero floor", func() Config { c := named(Defaults()); c.Floors.Creates = 0; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	var zero Config
	if zero.Validate(); zero.Settle != 0 || zero.Rates != (Rates{}) {
		t.Fatalf("Validate filled %+v", zero)
	}
}
