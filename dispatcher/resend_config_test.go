package dispatcher

import (
	"testing"

	"github.com/paygate/gateway/platform"
)

// TestResendDefaults: the defaults are createorder's rate and pass
// Validate; a zero rate stays the caller's; a negative one is refused.
func TestResendDefaults(t *testing.T) {
	if got := ResendDefaults().Limit; got != (platform.Limit{PerSecond: 1000, Burst: 2000}) {
		t.Fatalf("ResendDefaults().Limit = %+v, want createorder's 1000/s:2000", got)
	}
	tests := []struct {
		name string
		cfg  ResendConfig
		ok   bool
	}{
		{"defaults", ResendDefaults(), true},
		{"zero rate", ResendConfig{}, true},
		{"negative rate", ResendConfig{Limit: platform.Limit{PerSecond: -1, Burst: 1}}, false},
		{"negative burst", ResendConfig{Limit: platform.Limit{PerSecond: 1, Burst: -1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	var zero ResendConfig
	if zero.Validate(); zero.Limit != (platform.Limit{}) {
		t.Fatalf("Validate filled %+v", zero)
	}
}
