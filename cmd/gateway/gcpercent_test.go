package main

import (
	"io"
	"log/slog"
	"math"
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

// TestApplyMemoryLimit: the configured limit is set in MiB, 0 sets none,
// and GOMEMLIMIT in the environment leaves the runtime's in force.
func TestApplyMemoryLimit(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	const before = 3 << 30 // what the runtime holds when the case starts
	tests := []struct {
		name       string
		mib        int
		gomemlimit string
		want       int64
	}{
		{"the configured limit", 1024, "", 1 << 30},
		{"none", 0, "", math.MaxInt64},
		{"GOMEMLIMIT wins", 1024, "2GiB", before},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(before)
			if got := applyMemoryLimit(tc.mib, tc.gomemlimit, log); got != tc.want {
				t.Fatalf("applyMemoryLimit answered %d, want %d", got, tc.want)
			}
			if now := debug.SetMemoryLimit(-1); now != tc.want {
				t.Fatalf("the runtime's limit is %d, want %d", now, tc.want)
			}
		})
	}
}
