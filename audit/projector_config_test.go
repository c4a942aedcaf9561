package audit

import (
	"reflect"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestProjectorDefaults: a zero field takes the value it always took, the
// defaults pass Validate, and Validate refuses (and never fills) a bad or
// missing value.
func TestProjectorDefaults(t *testing.T) {
	want := ProjectorConfig{Consumer: platform.ConsumerName(), Streams: schema.AuditStreams(), BatchSize: 500, Wait: time.Second, ClaimIdle: 30 * time.Second}
	if got := (ProjectorConfig{}).withDefaults(); !reflect.DeepEqual(got, want) {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  ProjectorConfig
		ok   bool
	}{
		{"defaults", ProjectorDefaults(), true},
		{"zero fields are not filled by Validate", ProjectorConfig{}, false},
		{"negative batch", ProjectorConfig{BatchSize: -1}.withDefaults(), false},
		{"wait below a millisecond", ProjectorConfig{Wait: time.Microsecond}.withDefaults(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
