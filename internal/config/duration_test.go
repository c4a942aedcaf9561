package config

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Duration
		bad      bool
	}{
		{"seconds", `"10s"`, 10 * time.Second, false},
		{"compound", `"1m30s"`, 90 * time.Second, false},
		{"nanoseconds as a number", `10000000000`, 0, true},
		{"not a duration", `"ten seconds"`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Duration
			err := json.Unmarshal([]byte(tt.in), &d)
			if (err != nil) != tt.bad {
				t.Fatalf("Unmarshal(%s) = %v, want error %v", tt.in, err, tt.bad)
			}
			if !tt.bad && d.D() != tt.want {
				t.Fatalf("Unmarshal(%s) = %v, want %v", tt.in, d.D(), tt.want)
			}
		})
	}
	out, err := json.Marshal(Duration(1500 * time.Millisecond))
	if err != nil || string(out) != `"1.5s"` {
		t.Fatalf("Marshal = %s, %v; want \"1.5s\"", out, err)
	}
}
