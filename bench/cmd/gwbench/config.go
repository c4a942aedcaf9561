package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// scenarios run by default, in this order (see run).
var allScenarios = []string{"ceiling", "create", "channels", "order", "status", "page", "listing", "console", "projector", "webhooks", "events", "memory", "cluster"}

// config is everything a run needs: where the servers are, and how big
// each scenario is. scripts/bench.sh fills it for `make bench` and
// `make bench-quick`.
type config struct {
	RedisURL       string
	ClusterURL     string // a Redis Cluster seed, for the cluster scenario
	ClickHouseAddr string
	Gateway        string // gateway binary
	Ceiling        string // ceiling binary
	DataDir        string // gateway logs, pid files, perf data
	OutDir         string // JSON results
	Label          string // "full", "quick": names the run in the report
	Command        string // the command line that produced the run, for the report

	Phase       time.Duration // createorder and ceiling phases
	ShortPhase  time.Duration // every other phase
	Concurrency int
	// ReadConcurrency: the closed loops' connections for ClickHouse reads.
	ReadConcurrency int
	PoolRate        int // the most creates/s a body pool is sized for

	ListRows  int // orders of the listing merchant
	ListTotal int // orders in the table in all
	DeepPage  int
	PollEvery time.Duration // create-to-listed poll interval
	Catchup   int           // events queued before the projector starts
	Webhooks  int           // paid orders queued before the dispatcher starts
	Events    int           // endpoint events queued (3 endpoints each) before the dispatcher starts
	HookRate  int           // pays/s of the steady webhook phase
	HookPorts int           // receiver ports (the dispatcher limits in-flight per host)
	Scenarios []string
	RedisPID  int
	CHPID     int
	Perf      bool // perf record the gateway in extra createorder, status and page phases
	// Breakdown accounts for a create's CPU: Redis's by command, the
	// gateway's by component (it implies Perf).
	Breakdown bool
	// ExtraWrites also measures the ceiling at these numbers of sequential
	// write scripts per request: what each extra Redis write round trip costs.
	ExtraWrites []int
	// CeilingLanes, above 0, also measures the ceiling with its scripts in
	// shared pipelines, this many in flight: fiber and one batched script,
	// the floor of a gateway that batches its creates.
	CeilingLanes int
	// AOFRewriteMin, when set, is applied to Redis as
	// auto-aof-rewrite-min-size for the run: a diagnostic that tells the
	// tail latency AOF rewrites cause from the rest. Off by default: the
	// figures are for Redis as scripts/redis.sh configures it.
	AOFRewriteMin string
	// GatewayEnv are extra KEY=VALUE settings for every gateway started
	// (experiments with the roles' tunables, e.g. GATEWAY_WEBHOOK_CONCURRENCY).
	GatewayEnv []string
	ReadyAfter time.Duration
	// ConsolePhase is the console scenario's phase length (0: ShortPhase):
	// bench-quick keeps its seven phases short.
	ConsolePhase time.Duration
	// ConsoleConcurrency is the console pages' connections.
	ConsoleConcurrency int
}

func parseConfig(args []string, stderr io.Writer) (config, error) {
	c := config{}
	fs := flag.NewFlagSet("gwbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.RedisURL, "redis-url", "", "Redis URL of the gateway (database 0); the ceiling uses database 1")
	fs.StringVar(&c.ClusterURL, "redis-cluster-url", "", "Redis Cluster seed URL (redis://h:p1?addr=h:p2) for the cluster scenario")
	fs.StringVar(&c.ClickHouseAddr, "clickhouse-addr", "", "ClickHouse native address host:port")
	fs.StringVar(&c.Gateway, "gateway", "", "gateway binary")
	fs.StringVar(&c.Ceiling, "ceiling", "", "ceiling binary")
	fs.StringVar(&c.DataDir, "data", "", "directory for logs, pid files and profiles")
	fs.StringVar(&c.OutDir, "out", "bench-results", "directory for the JSON result")
	fs.StringVar(&c.Label, "label", "full", "name of this run's size (full, quick)")
	fs.StringVar(&c.Command, "command", "", "command line to record in the report")
	fs.DurationVar(&c.Phase, "phase", 20*time.Second, "length of the createorder and ceiling phases")
	fs.DurationVar(&c.ShortPhase, "short-phase", 10*time.Second, "length of the other phases")
	fs.IntVar(&c.Concurrency, "concurrency", 64, "connections of the closed loops")
	fs.IntVar(&c.ReadConcurrency, "read-concurrency", 8, "connections of the closed loops of ClickHouse reads (listing, reports): the gateway runs 4 of one merchant's at once by default, more only wait in its queue, and a wait past GATEWAY_CLICKHOUSE_READ_WAIT is refused")
	fs.IntVar(&c.PoolRate, "pool-rate", 15000, "creates/s the pre-signed body pools are sized for")
	fs.IntVar(&c.ListRows, "list-rows", 1_000_000, "orders of the listing merchant")
	fs.IntVar(&c.ListTotal, "list-total", 5_000_000, "orders in ClickHouse in all")
	fs.IntVar(&c.DeepPage, "deep-page", 1000, "the deep page of the listing")
	fs.DurationVar(&c.PollEvery, "poll", 25*time.Millisecond, "how often create-to-listed polls ClickHouse")
	fs.IntVar(&c.Catchup, "catchup-events", 500_000, "events queued before the projector starts")
	fs.IntVar(&c.Webhooks, "webhooks", 20_000, "paid orders queued before the dispatcher starts")
	fs.IntVar(&c.HookRate, "webhook-rate", 1000, "pays/s of the steady webhook phase")
	fs.IntVar(&c.HookPorts, "webhook-ports", 8, "ports of the webhook receiver")
	fs.IntVar(&c.Events, "events", 20_000, "endpoint events queued (to 3 endpoints each) before the dispatcher starts")
	only := fs.String("scenarios", strings.Join(allScenarios, ","), "scenarios to run")
	fs.IntVar(&c.RedisPID, "redis-pid", 0, "Redis pid, for CPU shares")
	fs.IntVar(&c.CHPID, "clickhouse-pid", 0, "ClickHouse pid, for CPU shares")
	fs.BoolVar(&c.Breakdown, "breakdown", false, "account for a create's CPU: Redis by command (and which the scripts run), the gateway by component from perf (implies --perf)")
	fs.BoolVar(&c.Perf, "perf", false, "perf record the gateway in extra createorder, status poll and payment page phases")
	fs.Func("ceiling-writes", "also measure the ceiling with N sequential writes per request (comma-separated N; 0: no Redis, fiber alone)", func(v string) error {
		for f := range strings.SplitSeq(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n == 1 {
				return fmt.Errorf("ceiling-writes: %q is not 0 (fiber alone) or a number of writes above 1", f)
			}
			c.ExtraWrites = append(c.ExtraWrites, n)
		}
		return nil
	})
	fs.IntVar(&c.CeilingLanes, "ceiling-lanes", 0, "also measure the ceiling with its scripts in shared pipelines, this many in flight, as the gateway's creates are sent (max throughput only)")
	fs.StringVar(&c.AOFRewriteMin, "aof-rewrite-min-size", "", "diagnostic: CONFIG SET auto-aof-rewrite-min-size for the run (e.g. 4gb)")
	fs.Func("gateway-env", "extra KEY=VALUE for every gateway (repeatable)", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || !strings.HasPrefix(k, "GATEWAY_") {
			return fmt.Errorf("gateway-env %q: want GATEWAY_NAME=VALUE", v)
		}
		c.GatewayEnv = append(c.GatewayEnv, v)
		return nil
	})
	fs.DurationVar(&c.ReadyAfter, "settle", 2*time.Second, "pause between phases")
	fs.DurationVar(&c.ConsolePhase, "console-phase", 0, "length of the console scenario's phases (0: --short-phase)")
	fs.IntVar(&c.ConsoleConcurrency, "console-concurrency", 8, "connections of the console pages' closed loops (the live A/B uses --concurrency)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.Scenarios = strings.Split(*only, ",")
	c.Perf = c.Perf || c.Breakdown
	return c, c.validate()
}

func (c *config) validate() error {
	var errs []error
	if c.RedisURL == "" || c.ClickHouseAddr == "" || c.Gateway == "" || c.DataDir == "" {
		errs = append(errs, errors.New("--redis-url, --clickhouse-addr, --gateway and --data are required"))
	}
	if host, _, err := net.SplitHostPort(c.ClickHouseAddr); err == nil && host != "127.0.0.1" {
		errs = append(errs, fmt.Errorf("--clickhouse-addr %s: benchmarks stay on 127.0.0.1", c.ClickHouseAddr))
	}
	if !strings.HasPrefix(c.RedisURL, "redis://127.0.0.1:") {
		errs = append(errs, fmt.Errorf("--redis-url %s: benchmarks stay on 127.0.0.1", c.RedisURL))
	}
	for _, s := range c.Scenarios {
		if !slices.Contains(allScenarios, s) {
			errs = append(errs, fmt.Errorf("unknown scenario %q (have %v)", s, allScenarios))
		}
	}
	if c.has("cluster") && !strings.HasPrefix(c.ClusterURL, "redis://127.0.0.1:") {
		errs = append(errs, fmt.Errorf("the cluster scenario needs --redis-cluster-url on 127.0.0.1 (got %q)", c.ClusterURL))
	}
	if c.has("ceiling") && c.Ceiling == "" {
		errs = append(errs, errors.New("--ceiling is required for the ceiling scenario"))
	}
	if c.Phase < time.Second || c.ShortPhase < time.Second || c.Concurrency < 1 || c.ConsoleConcurrency < 1 || c.ReadConcurrency < 1 {
		errs = append(errs, errors.New("phases must be at least 1s and concurrency at least 1"))
	}
	if c.ListRows > c.ListTotal || c.DeepPage < 1 || c.HookPorts < 1 || c.HookRate < 1 {
		errs = append(errs, errors.New("sizes: list-rows <= list-total, deep-page, webhook-ports and webhook-rate >= 1"))
	}
	return errors.Join(errs...)
}

func (c *config) has(scenario string) bool { return slices.Contains(c.Scenarios, scenario) }

// warmup is the unrecorded start of a phase.
func warmup(phase time.Duration) time.Duration { return min(2*time.Second, phase/10) }

// chDSN is the gateway's ClickHouse database.
func (c *config) chDSN() string { return "clickhouse://" + c.ClickHouseAddr + "/gateway" }
