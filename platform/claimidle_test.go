package platform

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// GATEWAY_CLAIM_IDLE is 0 (each role's default) or from MinClaimIdle to
// an hour: a shorter one takes events over from processes that are only
// busy.
func TestClaimIdleSetting(t *testing.T) {
	tests := []struct {
		name, env string
		want      time.Duration
		wantErr   string // substring of Validate's error; empty: valid
	}{
		{"unset is each role's default", "", 0, ""},
		{"ten seconds", "10s", 10 * time.Second, ""},
		{"the least", "2s", 2 * time.Second, ""},
		{"below the least", "1s", 0, "claim-idle"},
		{"negative", "-5s", 0, "claim-idle"},
		{"beyond an hour", "61m", 0, "claim-idle"},
		{"not a duration", "ten", 0, "GATEWAY_CLAIM_IDLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("GATEWAY_CLAIM_IDLE", tt.env)
			}
			cfg := Defaults()
			cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
			err := cfg.Validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate = %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if cfg.ClaimIdle != tt.want {
				t.Fatalf("ClaimIdle = %s, want %s", cfg.ClaimIdle, tt.want)
			}
		})
	}
}
