package frame

import (
	"testing"

	"github.com/paygate/gateway/access"
)

// TestDefaults: a form bound left zero takes 64 KiB as it always did, the
// defaults with a console's own names pass Validate, and a bad name is
// refused.
func TestDefaults(t *testing.T) {
	if got := (Config{}).withDefaults().MaxFormBytes; got != 64<<10 {
		t.Fatalf("zero form bound filled to %d, want %d", got, 64<<10)
	}
	named := func(c Config) Config {
		c.Base, c.Realm, c.CookieName, c.Brand = "/console", access.RealmMerchant, "gw_console", "console_brand"
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults with a console's names", named(Defaults()), true},
		{"defaults alone", Defaults(), false},
		{"base ending in a slash", func() Config { c := named(Defaults()); c.Base = "/console/"; return c }(), false},
		{"cookie name with a semicolon", func() Config { c := named(Defaults()); c.CookieName = "a;b"; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
