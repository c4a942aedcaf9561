package main

import (
	"log/slog"
	"runtime/debug"
)

// applyGCPercent sets the collector's target from the configuration unless
// GOGC is in the environment (gogc is its value): an operator who set Go's
// own variable meant it. It returns the target in force.
func applyGCPercent(percent int, gogc string, log *slog.Logger) int {
	if gogc != "" {
		log.Info("GOGC is set: the collector's target is Go's, not gc-percent", "GOGC", gogc)
		old := debug.SetGCPercent(-1)
		debug.SetGCPercent(old)
		return old
	}
	debug.SetGCPercent(percent)
	return percent
}
