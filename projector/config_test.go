package projector

import (
	"reflect"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestDefaults: a zero field takes the value it always took, the defaults
// pass Validate, and Validate refuses (and never fills) a bad or missing
// value.
func TestDefaults(t *testing.T) {
	want := Config{
		Consumer: platform.ConsumerName(), BatchSize: 20_000, FlushInterval: 250 * time.Millisecond,
		ClaimIdle: 30 * time.Second, ClaimEvery: 5 * time.Second, TrimEvery: 10 * time.Second,
		TrimGroups: schema.ConsumerGroups(), BackoffMin: 100 * time.Millisecond, BackoffMax: 5 * time.Second,
	}
	if got := (Config{}).withDefaults(); !reflect.DeepEqual(got, want) {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Defaults(), true},
		{"zero fields are not filled by Validate", Config{}, false},
		{"batch over 100000", Config{BatchSize: 100_001}.withDefaults(), false},
		{"flush interval over a second", Config{FlushInterval: 2 * time.Second}.withDefaults(), false},
		{"backoff min above max", Config{BackoffMin: time.Minute}.withDefaults(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
