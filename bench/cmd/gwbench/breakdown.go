package main

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/bench/loadgen"
)

// With --breakdown a run accounts for a create's CPU: Redis's by command
// (the createorder max phase's INFO commandstats, every command, per
// create), which of those commands the gateway sends and which its scripts
// run (a MONITOR of a short extra sample of creates, which also names each
// EVALSHA's script), and the gateway's by component (the perf recording of
// the createorder phase under perf, each sample given to the first
// component its stack names, leaf first). `make bench-breakdown` runs it.

// redisBreakdown is Redis's side of one create.
type redisBreakdown struct {
	Creates uint64 `json:"creates"`
	// CPUPerCreate is Redis's process CPU per create over the phase, µs.
	CPUPerCreate float64 `json:"redis_cpu_us_per_create"`
	// Commands are every command's calls and main-thread µs per create;
	// a script's time includes the commands it runs.
	Commands []commandShare `json:"commands"`
	// Scripts are the EVALSHA calls per create by script, from the sample.
	Scripts []scriptShare `json:"scripts,omitempty"`
	Sampled int           `json:"creates_sampled"`
	// ReadsPerCreate and WritesPerCreate are Redis's socket reads and
	// writes per create over the phase.
	ReadsPerCreate  float64 `json:"socket_reads_per_create"`
	WritesPerCreate float64 `json:"socket_writes_per_create"`
}

type commandShare struct {
	Name           string  `json:"name"`
	CallsPerCreate float64 `json:"calls_per_create"`
	UsPerCall      float64 `json:"us_per_call"`
	UsPerCreate    float64 `json:"us_per_create"`
	// FromScripts is the share of the sampled calls a script made (0: the
	// clients sent them all).
	FromScripts float64 `json:"from_scripts"`
}

type scriptShare struct {
	Script         string  `json:"script"`
	CallsPerCreate float64 `json:"calls_per_create"`
}

// topLevelUs is the main-thread time of the commands clients sent, per
// create: the commands scripts ran are inside their script's time.
func (r redisBreakdown) topLevelUs() float64 {
	var us float64
	for _, c := range r.Commands {
		us += c.UsPerCreate * (1 - c.FromScripts)
	}
	return us
}

// commandsPerCreate turns a commandstats delta into per-create shares,
// the costliest first; from is each command's share of script-run calls.
func commandsPerCreate(delta map[string]cmdStat, creates uint64, from map[string]float64) []commandShare {
	if creates == 0 {
		return nil
	}
	var out []commandShare
	for name, d := range delta {
		if d.Calls <= 0 {
			continue
		}
		out = append(out, commandShare{Name: name, CallsPerCreate: round2(float64(d.Calls) / float64(creates)),
			UsPerCall: round2(float64(d.Usec) / float64(d.Calls)), UsPerCreate: round2(float64(d.Usec) / float64(creates)),
			FromScripts: round2(from[name])})
	}
	slices.SortFunc(out, func(a, b commandShare) int { return largestFirst(a.UsPerCreate, b.UsPerCreate, a.Name, b.Name) })
	return out
}

// commandDelta is every command's calls and µs between two readings.
func commandDelta(before, after map[string]cmdStat) map[string]cmdStat {
	out := map[string]cmdStat{}
	for name, a := range after {
		d := cmdStat{Calls: a.Calls - before[name].Calls, Usec: a.Usec - before[name].Usec}
		if d.Calls > 0 {
			out[name] = d
		}
	}
	return out
}

// monitorSample is what MONITOR saw: per command, the calls clients sent
// and the calls scripts ran; per script sha, its EVALSHA calls.
type monitorSample struct {
	client, script map[string]int
	shas           map[string]int
}

// parseMonitor reads redis-cli MONITOR lines:
//
//	1700000000.123456 [0 127.0.0.1:5000] "EVALSHA" "ab12..." "7" ...
//	1700000000.123460 [0 lua] "HSET" "o:{01}:P1" ...
func parseMonitor(lines []string) monitorSample {
	s := monitorSample{client: map[string]int{}, script: map[string]int{}, shas: map[string]int{}}
	for _, l := range lines {
		_, rest, ok := strings.Cut(l, " [")
		if !ok {
			continue
		}
		src, rest, ok := strings.Cut(rest, "] ")
		if !ok {
			continue
		}
		words := quoted(rest, 2)
		if len(words) == 0 {
			continue
		}
		name := strings.ToLower(words[0])
		if strings.HasSuffix(src, " lua") {
			s.script[name]++
			continue
		}
		s.client[name]++
		if (name == "evalsha" || name == "evalsha_ro") && len(words) > 1 {
			s.shas[strings.ToLower(words[1])]++
		}
	}
	return s
}

// quoted is the first n double-quoted words of a MONITOR line.
func quoted(s string, n int) []string {
	var out []string
	for len(out) < n {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			break
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+2+j:]
	}
	return out
}

// fromScripts is each command's share of calls that scripts ran.
func (s monitorSample) fromScripts() map[string]float64 {
	out := map[string]float64{}
	for name, n := range s.script {
		out[name] = float64(n) / float64(n+s.client[name])
	}
	return out
}

// scriptNames maps the SHA1 of every .lua file under root to its path: an
// EVALSHA names its script only by that hash. A script the gateway builds
// from several files (a library and its script) matches none and keeps
// its hash.
func scriptNames(root string) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "sdk") {
			if d != nil && d.IsDir() && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".lua") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		sum := sha1.Sum(src)
		rel, _ := filepath.Rel(root, p)
		out[hex.EncodeToString(sum[:])] = rel
		return nil
	})
	return out
}

// scriptsPerCreate names the sampled EVALSHAs, per create.
func scriptsPerCreate(shas map[string]int, names map[string]string, creates int) []scriptShare {
	if creates == 0 {
		return nil
	}
	var out []scriptShare
	for sha, n := range shas {
		name := names[sha]
		if name == "" {
			name = "script " + sha[:min(12, len(sha))]
		}
		out = append(out, scriptShare{Script: name, CallsPerCreate: round2(float64(n) / float64(creates))})
	}
	slices.SortFunc(out, func(a, b scriptShare) int { return strings.Compare(a.Script, b.Script) })
	return out
}

// sampleMonitor runs MONITOR (redis-cli, a process of its own) over a
// short closed-loop run of fresh creates and returns what it saw and how
// many creates were answered. MONITOR slows Redis: the sample only
// classifies commands, the phase's own readings give the times.
func (b createScenario) sampleMonitor(ctx context.Context, gw *server, m account) (monitorSample, int, error) {
	out, err := os.CreateTemp(b.cfg.DataDir, "monitor-*.log")
	if err != nil {
		return monitorSample{}, 0, fmt.Errorf("monitor file: %w", err)
	}
	defer os.Remove(out.Name())
	defer out.Close()
	mon := exec.CommandContext(ctx, "redis-cli", "-u", b.cfg.RedisURL, "MONITOR")
	mon.Stdout = out
	if err := mon.Start(); err != nil {
		return monitorSample{}, 0, fmt.Errorf("start redis-cli MONITOR: %w", err)
	}
	time.Sleep(300 * time.Millisecond) // MONITOR answers OK before it sees anything
	bodies := createBodies(m, ownCreate, "cmon", 4000, nil)
	var answered atomic.Uint64
	_, err = loadgen.Closed(ctx, createTarget(bodies), loadgen.Options{Addr: gw.addr, Concurrency: 16,
		Duration: time.Second, OnResponse: counting(checkCreate(nil), &answered)})
	time.Sleep(300 * time.Millisecond)
	_ = mon.Process.Kill()
	_ = mon.Wait()
	if err != nil {
		return monitorSample{}, 0, fmt.Errorf("monitored creates: %w", err)
	}
	if _, err := out.Seek(0, 0); err != nil {
		return monitorSample{}, 0, fmt.Errorf("read the monitor file: %w", err)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return parseMonitor(lines), int(answered.Load()), nil
}

// breakdownReport is a create's CPU accounted.
type breakdownReport struct {
	Redis   redisBreakdown   `json:"redis"`
	Gateway []componentShare `json:"gateway_components,omitempty"`
	// GatewayUsPerCreate is the gateway's CPU per create in the phase
	// under perf, which the components divide.
	GatewayUsPerCreate float64 `json:"gateway_cpu_us_per_create,omitempty"`
	// RedisParts divide Redis's CPU per create in the phase under perf
	// (RedisUsPerCreate) by what it was doing.
	RedisParts       []componentShare `json:"redis_parts,omitempty"`
	RedisUsPerCreate float64          `json:"redis_cpu_us_per_create_under_perf,omitempty"`
}

func (b createScenario) breakdown() *breakdownReport {
	if b.rep.Breakdown == nil {
		b.rep.Breakdown = &breakdownReport{}
	}
	return b.rep.Breakdown
}

// breakdownRedis accounts for Redis's CPU per create over the createorder
// max phase, classified by a MONITOR sample.
func (b createScenario) breakdownRedis(ctx context.Context, gw *server, m account) {
	pc := b.rep.phaseCPU("createorder max")
	if pc == nil || pc.Answered == 0 {
		b.note("breakdown: no createorder max phase to account for")
		return
	}
	sample, n, err := b.sampleMonitor(ctx, gw, m)
	if err != nil {
		b.note("breakdown: %v", err)
	}
	r := &b.breakdown().Redis
	r.Creates, r.CPUPerCreate, r.Sampled = pc.Answered, pc.PerRequestUs["redis"], n
	r.Commands = commandsPerCreate(pc.RedisAll, pc.Answered, sample.fromScripts())
	r.Scripts = scriptsPerCreate(sample.shas, scriptNames("."), n)
	r.ReadsPerCreate = round2(float64(pc.RedisIO.Reads) / float64(pc.Answered))
	r.WritesPerCreate = round2(float64(pc.RedisIO.Writes) / float64(pc.Answered))
}

// perfBreakdown divides the CPU per create of process (its name in the
// phase's shares) over the phase under perf by what classify makes of each
// sample of its recording at perfData.
func (b createScenario) perfBreakdown(ctx context.Context, perfData, process string, classify func([]string) string) ([]componentShare, float64) {
	pc := b.rep.phaseCPU("createorder under perf")
	if pc == nil || pc.Answered == 0 {
		return nil, 0
	}
	us := pc.PerRequestUs[process]
	parts, err := perfShares(ctx, perfData, classify, us)
	if err != nil {
		b.note("breakdown of %s: %v", process, err)
		return nil, 0
	}
	return parts, us
}

// redisIO is Redis's reads from and writes to client sockets (INFO stats
// total_reads_processed and total_writes_processed): with pipelining, one
// read brings a whole pipeline, so reads per create is one over the
// pipelines' mean size.
type redisIO struct {
	Reads  int64 `json:"reads"`
	Writes int64 `json:"writes"`
}

func (b *bench) redisIO() redisIO {
	st := b.redisInfo(context.Background(), "stats")
	r, _ := strconv.ParseInt(st["total_reads_processed"], 10, 64)
	w, _ := strconv.ParseInt(st["total_writes_processed"], 10, 64)
	return redisIO{Reads: r, Writes: w}
}

func (a redisIO) minus(b redisIO) redisIO {
	return redisIO{Reads: a.Reads - b.Reads, Writes: a.Writes - b.Writes}
}
