package query

import (
	"testing"
	"time"
)

// TestRollupDefaults: a zero field takes the value it always took, the
// defaults pass Validate, and Validate refuses (and never fills) a bad or
// missing value.
func TestRollupDefaults(t *testing.T) {
	want := RollupConfig{OpenWindow: 2 * time.Hour, Every: 10 * time.Second, Margin: 30 * time.Second, FullEvery: 10 * time.Minute}
	if got := (RollupConfig{}).withDefaults(); got != want {
		t.Fatalf("zero fields filled to %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  RollupConfig
		ok   bool
	}{
		{"defaults", RollupDefaults(), true},
		{"zero fields are not filled by Validate", RollupConfig{}, false},
		{"open window below an hour", RollupConfig{OpenWindow: time.Minute}.withDefaults(), false},
		{"negative period", RollupConfig{Every: -time.Second}.withDefaults(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestFairGateDefaults: the gate's defaults are the values it always ran
// with and pass Validate; Validate never fills a zero field.
func TestFairGateDefaults(t *testing.T) {
	want := FairGateConfig{Concurrency: 8, PerMerchant: 64, PerMerchantInFlight: 2, SharedInFlight: 1, ShareWindow: time.Second, MaxWait: 10 * time.Second}
	if got := FairGateDefaults(); got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	tests := []struct {
		name string
		cfg  FairGateConfig
		ok   bool
	}{
		{"defaults", FairGateDefaults(), true},
		{"zero fields are not filled by Validate", FairGateConfig{}, false},
		{"cap over the slots", func() FairGateConfig { c := FairGateDefaults(); c.PerMerchantInFlight = 9; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
}
