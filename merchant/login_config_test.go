package merchant

import (
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
)

// TestLoginDefaults: a zero field takes the value it always took, the
// defaults pass Validate, and Validate refuses (and never fills) a bad or
// missing value.
func TestLoginDefaults(t *testing.T) {
	want := LoginConfig{
		SessionTTL: 15 * time.Minute,
		PerIP:      platform.Limit{PerSecond: 10.0 / 60, Burst: 10},
		PerAccount: platform.Limit{PerSecond: 5.0 / 60, Burst: 5},
	}
	if got := (LoginConfig{}).withDefaults(); got != want {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  LoginConfig
		ok   bool
	}{
		{"defaults", LoginDefaults(), true},
		{"zero fields are not filled by Validate", LoginConfig{}, false},
		{"session below a second", LoginConfig{SessionTTL: time.Millisecond}.withDefaults(), false},
		{"burst below 1", LoginConfig{PerIP: platform.Limit{PerSecond: 1}}.withDefaults(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
