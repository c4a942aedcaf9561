package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
)

// startCPUProfile profiles the process from now until the returned stop
// runs, into path.<pid> (several gateways of one run share the setting,
// and `make pgo` merges their profiles). An empty path profiles nothing.
func startCPUProfile(path string, log *slog.Logger) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	name := path + "." + strconv.Itoa(os.Getpid())
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("create the CPU profile (GATEWAY_CPU_PROFILE): %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start the CPU profile: %w", err)
	}
	log.Warn("writing a CPU profile of this process (a diagnostic setting)", "file", name)
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Error("close the CPU profile", "file", name, "err", err)
		}
	}, nil
}
