package fanout

import (
	"strings"
	"testing"
	"time"
)

// TestConfig: the defaults with a base URL are valid; each bad value is
// named.
func TestConfig(t *testing.T) {
	ok := Defaults()
	ok.BaseURL = "https://pay.example"
	tests := []struct {
		name string
		mut  func(*Config)
		want string // in the error; "" for none
	}{
		{"defaults", func(*Config) {}, ""},
		{"no base URL", func(c *Config) { c.BaseURL = "" }, "base URL"},
		{"a base URL without a scheme", func(c *Config) { c.BaseURL = "pay.example" }, "base URL"},
		{"count 0", func(c *Config) { c.Count = 0 }, "count"},
		{"count too high", func(c *Config) { c.Count = 10_001 }, "count"},
		{"block below 1ms", func(c *Config) { c.Block = time.Microsecond }, "block"},
		{"claim idle below 1ms", func(c *Config) { c.ClaimIdle = 0 }, "claim idle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mut(&c)
			err := c.Validate()
			if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate: %v, want %q", err, tt.want)
			}
		})
	}
	if c := (Config{BaseURL: "https://pay.example"}).withDefaults(); c.Validate() != nil || c.Count != 256 {
		t.Fatalf("zero fields not defaulted: %+v", c)
	}
}
