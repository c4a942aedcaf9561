package platform

import (
	"reflect"
	"testing"
	"time"
)

// TestLimiterDefaults: a nil policy takes DefaultOnRedisError, the defaults
// pass Validate, and Validate refuses (and never fills) a bad policy.
func TestLimiterDefaults(t *testing.T) {
	want := map[string]OnRedisError{ClassCreate: FailOpen, ClassQuery: FailOpen, ClassReport: FailOpen, ClassPages: FailClosed, ClassLogin: FailClosed}
	if got := (LimiterConfig{}).withDefaults(); !reflect.DeepEqual(got.OnRedisError, want) {
		t.Fatalf("nil policy filled to %v, want %v", got.OnRedisError, want)
	}
	if got := (LimiterConfig{OnRedisError: map[string]OnRedisError{}}).withDefaults(); len(got.OnRedisError) != 0 {
		t.Fatalf("an empty policy given on purpose was filled: %v", got.OnRedisError)
	}
	tests := []struct {
		name string
		cfg  LimiterConfig
		ok   bool
	}{
		{"defaults", LimiterDefaults(), true},
		{"nil policy is not filled by Validate", LimiterConfig{}, true},
		{"unnamed class", LimiterConfig{OnRedisError: map[string]OnRedisError{"": FailOpen}}, false},
		{"unknown policy", LimiterConfig{OnRedisError: map[string]OnRedisError{ClassCreate: 7}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	var zero LimiterConfig
	if zero.Validate(); zero.OnRedisError != nil {
		t.Fatal("Validate filled the policy")
	}
}

// TestBatcherDefaults: a field at or below zero takes the value it always
// took (4 lanes, 128 calls, 5 s), the defaults pass Validate, and Validate
// refuses (and never fills) a bad value.
func TestBatcherDefaults(t *testing.T) {
	want := BatcherConfig{Lanes: 4, Size: 128, Timeout: 5 * time.Second}
	for _, in := range []BatcherConfig{{}, {Lanes: -1, Size: -1, Timeout: -time.Second}} {
		if got := in.withDefaults(); got != want {
			t.Fatalf("%+v filled to %+v, want %+v", in, got, want)
		}
	}
	if got := (BatcherConfig{Lanes: 2, Size: 64, Timeout: time.Second}).withDefaults(); got != (BatcherConfig{Lanes: 2, Size: 64, Timeout: time.Second}) {
		t.Fatalf("given fields changed: %+v", got)
	}
	tests := []struct {
		name string
		cfg  BatcherConfig
		ok   bool
	}{
		{"defaults", BatcherDefaults(), true},
		{"zero fields are not filled by Validate", BatcherConfig{}, false},
		{"no lanes", BatcherConfig{Size: 1, Timeout: time.Second}, false},
		{"size 0", BatcherConfig{Lanes: 1, Timeout: time.Second}, false},
		{"no timeout", BatcherConfig{Lanes: 1, Size: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	if b := NewBatcher(nil, BatcherConfig{}); b.lanes != 4 || b.max != 128 || b.timeout != 5*time.Second {
		t.Fatalf("NewBatcher with a zero config: lanes %d, size %d, timeout %s", b.lanes, b.max, b.timeout)
	}
}
