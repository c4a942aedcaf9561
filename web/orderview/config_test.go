package orderview

import (
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Fatalf("Defaults().Validate() = %v", err)
	}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Defaults(), true},
		{"no clock", Config{PageSize: 25}, false},
		{"page size 0", Config{Now: time.Now}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	if got := (Config{}).withDefaults(); got.PageSize != 25 || got.Now == nil {
		t.Fatalf("zero config filled to %+v", got)
	}
}
