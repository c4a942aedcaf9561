package console

import (
	"testing"
	"time"
)

// TestDefaults: a zero (or negative) field of the console's settings takes
// the value it always took, the defaults pass Validate, and Validate
// refuses (and never fills) a bad or missing value.
func TestDefaults(t *testing.T) {
	got := (Config{PageSize: -1}).withDefaults()
	if got.PageSize != 25 || got.ExportRange != 30*24*time.Hour || got.Now == nil || got.Secure {
		t.Fatalf("zero fields filled to %+v, want page size 25, export range 720h and a clock", got)
	}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Defaults(), true},
		{"zero fields are not filled by Validate", Config{}, false},
		{"no clock", Config{PageSize: 25, ExportRange: time.Hour}, false},
		{"page size 0", Config{ExportRange: time.Hour, Now: time.Now}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestHubDefaults: a zero field of the live feed takes the value it always
// took, the defaults pass Validate, and a bound that cannot work is refused.
func TestHubDefaults(t *testing.T) {
	want := HubConfig{Every: 500 * time.Millisecond, Count: 64, MaxOrders: 25}
	if got := (HubConfig{}).withDefaults(); got != want {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  HubConfig
		ok   bool
	}{
		{"defaults", HubDefaults(), true},
		{"zero fields are not filled by Validate", HubConfig{}, false},
		{"negative count", HubConfig{Count: -1}.withDefaults(), false},
		{"negative period", HubConfig{Every: -time.Second}.withDefaults(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
