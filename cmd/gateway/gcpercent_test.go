package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestApplyGCPercent: the configured target is set, and GOGC in the
// environment leaves Go's own in force.
func TestApplyGCPercent(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	tests := []struct {
		name    string
		percent int
		gogc    string
		want    int
	}{
		{"the configured target", 400, "", 400},
		{"GOGC wins", 400, "150", 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			if got := applyGCPercent(tc.percent, tc.gogc, log); got != tc.want {
				t.Fatalf("applyGCPercent answered %d, want %d", got, tc.want)
			}
			if now := debug.SetGCPercent(100); now != tc.want {
				t.Fatalf("the runtime's target is %d, want %d", now, tc.want)
			}
		})
	}
}
