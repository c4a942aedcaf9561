package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// perfRecording is a `perf record` of one process for a fixed time. The
// gateway has no pprof listener, and needs none for this: perf samples it
// from outside, Go symbols included (the binary is built with -trimpath,
// not stripped).
type perfRecording struct {
	path string
	cmd  *exec.Cmd
	done chan error
}

// perfPhase starts recording s for d when the run was asked to profile,
// else returns nil.
func (b *bench) perfPhase(ctx context.Context, phase string, s *server, d time.Duration) *perfRecording {
	if !b.cfg.Perf {
		return nil
	}
	rec, err := startPerf(ctx, b.cfg, phase, s.pid(), d)
	if err != nil {
		b.note("perf: %v", err)
		return nil
	}
	return rec
}

// perfDone keeps the recording's summary in the report.
func (b *bench) perfDone(ctx context.Context, rec *perfRecording, phase string) {
	if rec == nil {
		return
	}
	top, err := rec.report(ctx, 25)
	if err != nil {
		b.note("perf report of %s: %v", phase, err)
		return
	}
	b.rep.Profiles[phase] = top
	b.logf("perf of %s:\n%s", phase, strings.Join(top, "\n"))
}

func startPerf(ctx context.Context, cfg *config, phase string, pid int, d time.Duration) (*perfRecording, error) {
	if _, err := exec.LookPath("perf"); err != nil {
		return nil, fmt.Errorf("perf is not installed: %w", err)
	}
	name := "perf-" + strings.ReplaceAll(phase, " ", "-") + ".data"
	r := &perfRecording{path: filepath.Join(cfg.DataDir, name), done: make(chan error, 1)}
	secs := strconv.FormatFloat(d.Seconds(), 'f', 1, 64)
	// -g: Go keeps frame pointers, so perf can attribute time to callers
	// as well (the "inclusive" section of the report).
	r.cmd = exec.CommandContext(ctx, "perf", "record", "-F", "499", "-g", "-p", strconv.Itoa(pid), "-o", r.path, "--", "sleep", secs)
	r.cmd.Stdout, r.cmd.Stderr = os.Stderr, os.Stderr
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start perf: %w", err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	return r, nil
}

// report waits for the recording and returns the top n symbols by self
// time, and the split by binary (gateway, kernel, libc).
func (r *perfRecording) report(ctx context.Context, n int) ([]string, error) {
	if err := <-r.done; err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	var keep func(string) bool
	run := func(sort string, limit int, extra ...string) ([]string, error) {
		args := append([]string{"report", "-i", r.path, "--stdio", "--sort", sort, "-g", "none", "--percent-limit", "0.3", "-q"}, extra...)
		out, err := exec.CommandContext(ctx, "perf", args...).Output()
		if err != nil {
			return nil, fmt.Errorf("perf report --sort %s: %w", sort, err)
		}
		var lines []string
		for l := range strings.SplitSeq(string(out), "\n") {
			if !keep(l) {
				continue
			}
			// perf pads each line with empty columns ("-") of sort keys it
			// does not fill.
			l = strings.TrimRight(l, " -")
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		return lines[:min(limit, len(lines))], nil
	}
	keep = func(string) bool { return true }
	dsos, err := run("dso", 6, "--no-children")
	if err != nil {
		return nil, err
	}
	syms, err := run("dso,symbol", n, "--no-children")
	if err != nil {
		return nil, err
	}
	// Inclusive time of our own code and the standard library parts it
	// leans on, the runtime and drivers left out: which step costs what.
	keep = func(l string) bool {
		for _, p := range []string{"paygate/gateway", "encoding/json", "crypto/", "log/slog", "net/http.(*Client)"} {
			if strings.Contains(l, p) {
				return true
			}
		}
		return false
	}
	incl, err := run("symbol", n, "--children")
	if err != nil {
		return nil, err
	}
	out := append([]string{"# by binary"}, dsos...)
	out = append(out, "# by symbol (self time)")
	out = append(out, syms...)
	out = append(out, "# inclusive (children, self): our code and its libraries")
	return append(out, incl...), nil
}
