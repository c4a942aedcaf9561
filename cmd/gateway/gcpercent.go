package main

import (
	"log/slog"
	"math"
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

// applyMemoryLimit sets the runtime's soft memory limit to mib MiB (0:
// none) unless GOMEMLIMIT is in the environment (gomemlimit is its value),
// which the runtime has applied already. It returns the limit in force, in
// bytes (math.MaxInt64: none).
func applyMemoryLimit(mib int, gomemlimit string, log *slog.Logger) int64 {
	if gomemlimit != "" {
		log.Info("GOMEMLIMIT is set: the memory limit is Go's, not memory-limit", "GOMEMLIMIT", gomemlimit)
		return debug.SetMemoryLimit(-1)
	}
	limit := int64(math.MaxInt64)
	if mib > 0 {
		limit = int64(mib) << 20
	}
	debug.SetMemoryLimit(limit)
	return limit
}
