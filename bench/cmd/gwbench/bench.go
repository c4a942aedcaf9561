package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/platform"
)

// bench is one run: its configuration, its connections to the servers,
// and the report it fills, with the plumbing every phase shares (timed
// loadgen runs, CPU shares, Redis INFO). Each scenario family is a small
// type holding it (createScenario, readScenario, consoleScenario,
// projectorScenario, webhookScenario, memoryScenario, clusterScenario,
// listingSetup).
type bench struct {
	cfg *config
	rdb *redis.Client
	ch  driver.Conn
	rep *report
	log io.Writer
	// createMax is createorder's measured max throughput; later phases
	// run at half of it.
	createMax float64
}

func newBench(ctx context.Context, cfg *config, log io.Writer) (*bench, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	// A single node's own client: the bench reads its options to reach
	// other databases of the same server.
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("parse redis url: %w", err)
	}
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("ping redis: %w", err)
	}
	ch, err := platform.OpenClickHouse(cfg.chDSN())
	if err != nil {
		rdb.Close()
		return nil, err
	}
	return &bench{cfg: cfg, rdb: rdb, ch: ch, log: log, rep: newReport(cfg)}, nil
}

func (b *bench) close() {
	b.rdb.Close()
	b.ch.Close()
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "gwbench %s: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// pids are the processes whose CPU a phase reports by name: the servers,
// this generator, and the run's own servers passed in.
func (b *bench) pids(servers ...*server) map[string]int {
	p := map[string]int{"generator": os.Getpid()}
	if b.cfg.RedisPID > 0 {
		p["redis"] = b.cfg.RedisPID
	}
	if b.cfg.CHPID > 0 {
		p["clickhouse"] = b.cfg.CHPID
	}
	for _, s := range servers {
		if s != nil {
			p[s.name] = s.pid()
		}
	}
	return p
}

// measure runs one phase, recording where the machine's CPU went during it
// and, when answered counts its successful requests, what each cost.
func (b *bench) measure(name string, servers []*server, answered *atomic.Uint64, fn func() error) error {
	b.rewriteAOFAhead(context.Background(), name)
	time.Sleep(b.cfg.ReadyAfter)
	b.logf("phase %s", name)
	ph := b.startPhase(name, servers...)
	ph.answered = answered
	err := fn()
	ph.stop()
	return err
}

// counting wraps a response check so that n counts the requests it
// accepts, warm-up included: the phase's CPU is measured over the warm-up
// too, so both sides of the division cover the same stretch. A nil check
// accepts any 2xx, as loadgen does.
func counting(check func(*loadgen.Response) error, n *atomic.Uint64) func(*loadgen.Response) error {
	return func(r *loadgen.Response) error {
		var err error
		switch {
		case check != nil:
			err = check(r)
		case r.Status < 200 || r.Status > 299:
			err = fmt.Errorf("status %d", r.Status)
		}
		if err == nil {
			n.Add(1)
		}
		return err
	}
}

// phase is a stretch whose CPU shares, AOF rewrites and Redis stalls the
// report shows.
type phase struct {
	b    *bench
	name string
	cpu  *cpuMeter
	aof  int
	cmds map[string]cmdStat
	// io is Redis's socket reads and writes at the start (--breakdown).
	io redisIO
	// procs is every process's CPU time at the start, to name the others.
	procs map[int]procTicks
	// answered counts the phase's successful requests, or is nil.
	answered *atomic.Uint64
}

func (b *bench) startPhase(name string, servers ...*server) *phase {
	_ = b.rdb.Do(context.Background(), "LATENCY", "RESET").Err()
	p := &phase{b: b, name: name, cpu: startCPU(b.pids(servers...)), aof: b.aofRewrites(), cmds: b.cmdStats(),
		procs: allProcTicks()}
	if b.cfg.Breakdown {
		p.io = b.redisIO()
	}
	return p
}

func (p *phase) stop() {
	shares := p.cpu.stop()
	rw := p.b.aofRewrites() - p.aof
	stalls := p.b.redisStalls()
	pc := phaseCPU{Phase: p.name, Shares: shares, AOFRewrites: rw, RedisStallsMs: stalls,
		RedisCommands: topCommands(p.cmds, p.b.cmdStats(), 4), Others: othersSince(p.procs, p.cpu, 3)}
	if p.b.cfg.Breakdown {
		pc.RedisAll = commandDelta(p.cmds, p.b.cmdStats())
		pc.RedisIO = p.b.redisIO().minus(p.io)
	}
	if p.answered != nil {
		pc.Answered = p.answered.Load()
		pc.PerRequestUs = perRequest(shares.Seconds, pc.Answered)
	}
	p.b.rep.CPU = append(p.b.rep.CPU, pc)
	p.b.logf("phase %s: cpu %.2f cores busy, ours %v, others %.2f; %d AOF rewrites; Redis stalls %v ms; CPU µs per request %v",
		p.name, shares.Busy, shares.Ours, shares.Others, rw, stalls, pc.PerRequestUs)
}

// perRequest is each process's CPU time per answered request, in µs.
func perRequest(seconds map[string]float64, answered uint64) map[string]float64 {
	if answered == 0 {
		return nil
	}
	out := make(map[string]float64, len(seconds))
	for name, s := range seconds {
		out[name] = round2(s * 1e6 / float64(answered))
	}
	return out
}

// redisStalls is, per Redis latency-monitor event (aof-fsync-always,
// aof-write, fork, command...), the longest stall in ms since the phase
// began: with appendfsync always, the fsync in Redis's main thread is what
// every write waits for.
func (b *bench) redisStalls() map[string]int64 {
	res, err := b.rdb.Do(context.Background(), "LATENCY", "LATEST").Slice()
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, e := range res {
		f, ok := e.([]any)
		if !ok || len(f) < 4 {
			continue
		}
		name, _ := f[0].(string)
		worst, _ := f[3].(int64)
		out[name] = worst
	}
	return out
}

// aofRewrites is how many AOF rewrites Redis has started.
func (b *bench) aofRewrites() int {
	n, _ := strconv.Atoi(b.redisInfo(context.Background(), "persistence")["aof_rewrites"])
	return n
}

// closed and open are loadgen runs against a server, with the phase's CPU
// shares recorded.
func (b *bench) closed(ctx context.Context, name string, s *server, t loadgen.Target, dur time.Duration, check func(*loadgen.Response) error) (loadgen.Result, error) {
	return b.closedAt(ctx, name, s, t, dur, b.cfg.Concurrency, check)
}

func (b *bench) closedAt(ctx context.Context, name string, s *server, t loadgen.Target, dur time.Duration, conc int, check func(*loadgen.Response) error) (loadgen.Result, error) {
	var res loadgen.Result
	var n atomic.Uint64
	err := b.measure(name, []*server{s}, &n, func() error {
		var err error
		res, err = loadgen.Closed(ctx, t, loadgen.Options{Addr: s.addr, Concurrency: conc,
			Duration: dur, Warmup: warmup(dur), OnResponse: counting(check, &n)})
		return err
	})
	b.logf("%s: %s", name, res.String())
	return res, err
}

func (b *bench) open(ctx context.Context, name string, s *server, t loadgen.Target, rate float64, dur time.Duration, check func(*loadgen.Response) error) (loadgen.Result, error) {
	var res loadgen.Result
	var n atomic.Uint64
	err := b.measure(name, []*server{s}, &n, func() error {
		var err error
		res, err = loadgen.Open(ctx, t, rate, loadgen.Options{Addr: s.addr, Concurrency: b.cfg.Concurrency,
			Duration: dur, Warmup: warmup(dur), OnResponse: counting(check, &n)})
		return err
	})
	b.logf("%s: %s", name, res.String())
	return res, err
}

// note adds a line to the report's notes and the log.
func (b *bench) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	b.rep.Notes = append(b.rep.Notes, s)
	b.logf("note: %s", s)
}

// redisInfo reads one INFO section as a map.
func (b *bench) redisInfo(ctx context.Context, section string) map[string]string {
	out := map[string]string{}
	s, err := b.rdb.Info(ctx, section).Result()
	if err != nil {
		return out
	}
	for line := range strings.SplitSeq(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out[k] = v
		}
	}
	return out
}

// cmdStat is one command's line of INFO commandstats.
type cmdStat struct {
	Calls int64   `json:"calls"`
	Usec  int64   `json:"usec"`
	Per   float64 `json:"usec_per_call"`
}

// cmdStats reads INFO commandstats: how many calls of each command Redis
// served and the time its main thread spent in them (a script's time
// includes the commands it runs).
func (b *bench) cmdStats() map[string]cmdStat {
	out := map[string]cmdStat{}
	for k, v := range b.redisInfo(context.Background(), "commandstats") {
		name, ok := strings.CutPrefix(k, "cmdstat_")
		if !ok {
			continue
		}
		var c cmdStat
		for f := range strings.SplitSeq(v, ",") {
			fk, fv, _ := strings.Cut(f, "=")
			n, _ := strconv.ParseInt(fv, 10, 64)
			switch fk {
			case "calls":
				c.Calls = n
			case "usec":
				c.Usec = n
			}
		}
		out[name] = c
	}
	return out
}

// topCommands is the n commands Redis spent most time in between two
// readings.
func topCommands(before, after map[string]cmdStat, n int) map[string]cmdStat {
	type kv struct {
		name string
		c    cmdStat
	}
	var all []kv
	for name, a := range after {
		d := cmdStat{Calls: a.Calls - before[name].Calls, Usec: a.Usec - before[name].Usec}
		if d.Calls > 0 {
			d.Per = round2(float64(d.Usec) / float64(d.Calls))
			all = append(all, kv{name, d})
		}
	}
	slices.SortFunc(all, func(x, y kv) int { return int(y.c.Usec - x.c.Usec) })
	out := map[string]cmdStat{}
	for _, e := range all[:min(n, len(all))] {
		out[e.name] = e.c
	}
	return out
}
