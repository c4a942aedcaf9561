package platform

import (
	"reflect"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestConsumerDefaults: a zero field takes the value it always took, the
// defaults pass Validate once a group is named, and Validate refuses (and
// never fills) a bad or missing value.
func TestConsumerDefaults(t *testing.T) {
	var streams []string
	for _, s := range schema.AllShards() {
		streams = append(streams, schema.EventsKey(s))
	}
	want := ConsumerConfig{Group: "g", Name: ConsumerName(), Streams: streams, Count: 256, Block: time.Second, ClaimIdle: 30 * time.Second}
	if got := (ConsumerConfig{Group: "g"}).withDefaults(); !reflect.DeepEqual(got, want) {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	named := func(c ConsumerConfig) ConsumerConfig { c.Group = "g"; return c }
	tests := []struct {
		name string
		cfg  ConsumerConfig
		ok   bool
	}{
		{"defaults with a group", named(ConsumerDefaults()), true},
		{"defaults without a group", ConsumerDefaults(), false},
		{"zero fields are not filled by Validate", ConsumerConfig{Group: "g"}, false},
		{"count below 1", func() ConsumerConfig { c := named(ConsumerDefaults()); c.Count = -1; return c }(), false},
		{"block below 1ms", func() ConsumerConfig { c := named(ConsumerDefaults()); c.Block = time.Microsecond; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
