package ledger

import (
	"testing"
	"time"
)

// TestConfigDefaultsAndValidate: the zero value takes the defaults, which
// pass; Validate refuses (and never fills) a bad value.
func TestConfigDefaultsAndValidate(t *testing.T) {
	if err := (Config{}).withDefaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if d := Defaults(); d.SettleEvery != 10*time.Second || d.SettleLimit != 500 || d.Batch != 4000 {
		t.Fatalf("defaults %+v", d)
	}
	bad := func(f func(*Config)) Config { c := Defaults(); f(&c); return c }
	tests := []struct {
		name string
		cfg  Config
	}{
		{"zero fields are not filled by Validate", Config{}},
		{"batch above 10000", bad(func(c *Config) { c.Batch = 10_001 })},
		{"settle limit of 0", bad(func(c *Config) { c.SettleLimit = 0 })},
		{"claim idle below 1ms", bad(func(c *Config) { c.ClaimIdle = time.Microsecond })},
		{"negative settle interval", bad(func(c *Config) { c.SettleEvery = -time.Second })},
		{"no clock", bad(func(c *Config) { c.Now = nil })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); err == nil {
				t.Fatal("Validate passed a bad configuration")
			}
		})
	}
}
