package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc CPU times; 100 on every Linux
// architecture Go runs on.
const clockTicks = 100

// machineState is what else the shared machine was doing: benchmarks on a
// 2-core machine shared with other engineers mean nothing without it.
type machineState struct {
	NumCPU     int         `json:"nproc"`
	LoadBefore string      `json:"load_before"`
	LoadAfter  string      `json:"load_after,omitempty"`
	Others     []procShare `json:"busiest_other_processes"` // over a 2 s sample before the run
	Kernel     string      `json:"kernel,omitempty"`
	GoVersion  string      `json:"go"`
}

// procShare is one process's CPU use, in cores.
type procShare struct {
	PID   int     `json:"pid"`
	Name  string  `json:"name"`
	Cores float64 `json:"cores"`
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func observeMachine(ctx context.Context, ours map[string]int) machineState {
	m := machineState{NumCPU: runtime.NumCPU(), LoadBefore: loadAvg(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.Others = busiestOthers(ctx, ours, 2*time.Second, 5)
	return m
}

// othersSince is the top n processes by CPU since before, other than the
// meter's: who else used the machine during a phase (kernel threads such
// as ksoftirqd included, which carry network work no process is charged for).
func othersSince(before map[int]procTicks, m *cpuMeter, n int) []procShare {
	mine := map[int]bool{}
	for _, pid := range m.pids {
		mine[pid] = true
	}
	return topShares(before, allProcTicks(), mine, time.Since(m.at), n)
}

// topShares ranks the processes by CPU used between two samples.
func topShares(before, after map[int]procTicks, mine map[int]bool, over time.Duration, n int) []procShare {
	var out []procShare
	for pid, t := range after {
		if mine[pid] {
			continue
		}
		if d := t.ticks - before[pid].ticks; d > 0 && before[pid].name != "" {
			out = append(out, procShare{PID: pid, Name: t.name, Cores: round2(float64(d) / clockTicks / over.Seconds())})
		}
	}
	slices.SortFunc(out, func(a, b procShare) int { return int((b.Cores - a.Cores) * 1e6) })
	return out[:min(n, len(out))]
}

// busiestOthers samples every process twice and returns the top n by CPU
// that are not ours.
func busiestOthers(ctx context.Context, ours map[string]int, over time.Duration, n int) []procShare {
	mine := map[int]bool{os.Getpid(): true}
	for _, pid := range ours {
		mine[pid] = true
	}
	before := allProcTicks()
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(over):
	}
	return topShares(before, allProcTicks(), mine, over, n)
}

type procTicks struct {
	name  string
	ticks int64
}

func allProcTicks() map[int]procTicks {
	out := map[int]procTicks{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if t, name, ok := pidTicks(pid); ok {
			out[pid] = procTicks{name: name, ticks: t}
		}
	}
	return out
}

// pidTicks reads a process's user+system CPU time and its command name.
func pidTicks(pid int) (int64, string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// comm is in parentheses and may hold spaces; fields follow the last ')'.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return 0, "", false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 13 {
		return 0, "", false
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s, string(b[open+1 : end]), true
}

// totalBusyTicks is the machine's busy CPU time (all but idle and iowait).
func totalBusyTicks() int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var busy int64
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i != 3 && i != 4 && i < 8 { // user nice system [idle iowait] irq softirq steal
			busy += n
		}
	}
	return busy
}

// cpuShares is where the machine's CPU went during a phase, in cores:
// each of our processes, and everything else on the machine.
type cpuShares struct {
	Busy   float64            `json:"busy"`
	Ours   map[string]float64 `json:"ours"`
	Others float64            `json:"others"`
	// Seconds is each of our processes' CPU time (user + system) over the
	// phase: divided by the requests answered, the CPU each one cost.
	Seconds map[string]float64 `json:"cpu_seconds"`
}

// cpuMeter measures cpuShares between start and stop.
type cpuMeter struct {
	pids  map[string]int
	at    time.Time
	busy  int64
	ticks map[string]int64
}

func startCPU(pids map[string]int) *cpuMeter {
	m := &cpuMeter{pids: pids, at: time.Now(), busy: totalBusyTicks(), ticks: map[string]int64{}}
	for name, pid := range pids {
		m.ticks[name], _, _ = pidTicks(pid)
	}
	return m
}

func (m *cpuMeter) stop() cpuShares {
	secs := time.Since(m.at).Seconds()
	s := cpuShares{Busy: round2(float64(totalBusyTicks()-m.busy) / clockTicks / secs), Ours: map[string]float64{},
		Seconds: map[string]float64{}}
	sum := 0.0
	for name, pid := range m.pids {
		t, _, ok := pidTicks(pid)
		if !ok {
			continue
		}
		used := float64(t-m.ticks[name]) / clockTicks
		c := used / secs
		s.Ours[name] = round2(c)
		s.Seconds[name] = used
		sum += c
	}
	s.Others = round2(max(0, s.Busy-sum))
	return s
}

// rssSampler follows a process's resident memory while a phase runs.
type rssSampler struct {
	stopc chan struct{}
	wg    sync.WaitGroup
	maxKB int64
}

func sampleRSS(pid int) *rssSampler {
	r := &rssSampler{stopc: make(chan struct{})}
	r.wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			r.maxKB = max(r.maxKB, rssKB(pid))
			select {
			case <-r.stopc:
				return
			case <-t.C:
			}
		}
	})
	return r
}

// stop ends the sampling and returns the peak in MiB.
func (r *rssSampler) stop() float64 {
	close(r.stopc)
	r.wg.Wait()
	return round2(float64(r.maxKB) / 1024)
}

func rssKB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			_, _ = fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }
