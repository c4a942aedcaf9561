package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paygate/gateway/bench/loadgen"
)

// report is one run's figures: printed as Markdown, kept as JSON in
// bench-results/ so runs can be compared.
type report struct {
	Label    string         `json:"label"`
	Command  string         `json:"command,omitempty"`
	Started  time.Time      `json:"started"`
	Finished time.Time      `json:"finished"`
	Machine  machineState   `json:"machine"`
	Sizes    map[string]any `json:"sizes"`
	Ceiling  *pair          `json:"ceiling,omitempty"`
	// CeilingMore is the ceiling with more sequential writes per request.
	CeilingMore []ceilingWrites `json:"ceiling_more_writes,omitempty"`
	Create      *createReport   `json:"createorder,omitempty"`
	Channels    *channelsReport `json:"channels,omitempty"`
	Order       *pair           `json:"order,omitempty"`
	Status      *pair           `json:"status_poll,omitempty"` // GET /payment/{id}/status
	// StatusPerIP is the status poll max with every request from its own
	// client address: the pages limit's lease fetched each time.
	StatusPerIP *loadgen.Result     `json:"status_poll_own_address_each,omitempty"`
	Page        *pair               `json:"payment_page,omitempty"` // GET /payment/{id}
	List        *pair               `json:"orders_page1,omitempty"`
	ListDeep    *pair               `json:"orders_deep,omitempty"`
	ListPaid    *pair               `json:"orders_status_paid,omitempty"`     // page 1 with status=paid
	ListMethod  *pair               `json:"orders_method_currency,omitempty"` // page 1 by paymentMethod and currency
	Summary     *pair               `json:"summary_90d,omitempty"`
	Series      *pair               `json:"timeseries_day_method_90d,omitempty"`
	Export      *exportReport       `json:"export,omitempty"`
	Console     *consoleReport      `json:"console,omitempty"`
	FairShare   *fairShareReport    `json:"fair_share,omitempty"`
	Delay       *delayReport        `json:"create_to_listed,omitempty"`
	CatchUp     *catchUpReport      `json:"projector_catch_up,omitempty"`
	Hooks       *webhookReport      `json:"webhooks,omitempty"`
	Events      *eventsReport       `json:"endpoint_events,omitempty"`
	Memory      memoryReport        `json:"memory"`
	Cluster     *clusterReport      `json:"redis_cluster,omitempty"`
	CPU         []phaseCPU          `json:"cpu"`
	Profiles    map[string][]string `json:"perf_top,omitempty"` // by phase
	Breakdown   *breakdownReport    `json:"create_breakdown,omitempty"`
	Targets     []targetCheck       `json:"targets"`
	Errors      map[string]string   `json:"errors,omitempty"`
	Notes       []string            `json:"notes,omitempty"`
}

// pair is a closed-loop maximum and an open-loop run at half of it.
type pair struct {
	Max  loadgen.Result  `json:"max"`
	Half *loadgen.Result `json:"half_load,omitempty"`
}

type ceilingWrites struct {
	Writes int            `json:"writes"`
	Lanes  int            `json:"lanes,omitempty"` // batched: pipelines in flight
	Max    loadgen.Result `json:"max"`
}

type createReport struct {
	pair
	Ratio     float64          `json:"ratio_to_ceiling,omitempty"`
	Providers []providerCreate `json:"with_provider,omitempty"`
}

// providerCreate is the max throughput of creates that ask a provider.
type providerCreate struct {
	Method   string         `json:"method"`
	Currency string         `json:"currency"`
	Max      loadgen.Result `json:"max"`
}

type delayReport struct {
	Rate     float64         `json:"creates_per_s"`
	Creates  loadgen.Result  `json:"creates"`
	Delay    loadgen.Summary `json:"delay"`
	Missing  int             `json:"never_listed"`
	PollEvry string          `json:"poll_interval"`
}

type catchUpReport struct {
	Events       int64   `json:"events"`
	Injected     int     `json:"synthetic_events"`
	InjectPerSec float64 `json:"inject_events_per_s"`
	Seconds      float64 `json:"seconds"`      // from the projector's start to lag and pending 0
	PerSec       float64 `json:"events_per_s"` // Events / Seconds
	FromReady    float64 `json:"events_per_s_from_ready"`
	Rows         uint64  `json:"clickhouse_rows_of_merchant"`
	// From the projector's own metrics: how many inserts, their mean size,
	// and the share of the catch-up spent waiting for ClickHouse.
	Inserts      float64            `json:"inserts"`
	MeanBatch    float64            `json:"mean_rows_per_insert"`
	InsertShare  float64            `json:"insert_time_share"`
	MeanInsertMs float64            `json:"mean_insert_ms"`
	Metrics      map[string]float64 `json:"metrics,omitempty"`
}

type webhookReport struct {
	Skipped     string          `json:"skipped,omitempty"`
	Ports       int             `json:"receiver_ports"`
	SteadyRate  float64         `json:"steady_pays_per_s,omitempty"`
	Pays        *loadgen.Result `json:"pays,omitempty"`
	Delivered   int             `json:"steady_delivered"`
	Duplicates  int             `json:"duplicates"`
	SteadyPerS  float64         `json:"steady_deliveries_per_s"`
	Delay       loadgen.Summary `json:"paid_to_delivered"`
	Backlog     int             `json:"backlog_orders,omitempty"`
	BacklogGot  int             `json:"backlog_delivered,omitempty"`
	BacklogPerS float64         `json:"backlog_deliveries_per_s,omitempty"`
	// From the dispatcher's own metrics during the backlog drain.
	MeanAttemptMs float64            `json:"backlog_mean_attempt_ms,omitempty"`
	Metrics       map[string]float64 `json:"backlog_metrics,omitempty"`
}

type memoryReport struct {
	GatewayRSSMiB     float64 `json:"gateway_rss_peak_mib_createorder,omitempty"`
	GatewayRSSAllMiB  float64 `json:"gateway_rss_peak_mib_all_roles,omitempty"`
	RedisOrderBytes   float64 `json:"redis_bytes_per_live_order,omitempty"` // hash + clientOrderId key + expiry index entry
	RedisHashBytes    float64 `json:"redis_order_hash_bytes,omitempty"`     // the hash alone
	RedisIndexBytes   float64 `json:"redis_expiry_index_bytes_per_order,omitempty"`
	RedisStreamBytes  float64 `json:"redis_stream_bytes_per_event,omitempty"` // until consumers acknowledge and trim
	RedisUsedPerOrder float64 `json:"redis_used_memory_delta_per_order,omitempty"`
	// RedisLivePerOrder is used_memory's growth over the createorder phases
	// less the event streams' growth, per create answered: the hash, the
	// clientOrderId key and the expiry index entry as Redis holds them,
	// allocator overhead included.
	RedisLivePerOrder float64 `json:"redis_used_memory_per_live_order,omitempty"`
	RedisCreates      uint64  `json:"redis_creates_counted,omitempty"`
	RedisSampled      int     `json:"redis_orders_sampled,omitempty"`
	CHBytesPerRow     float64 `json:"clickhouse_bytes_per_row,omitempty"`
	CHRows            uint64  `json:"clickhouse_rows,omitempty"`
	CHBytes           uint64  `json:"clickhouse_bytes_on_disk,omitempty"`
	AOFRewrites       string  `json:"redis_aof_rewrites,omitempty"`
}

type phaseCPU struct {
	Phase  string    `json:"phase"`
	Shares cpuShares `json:"cores"`
	// AOFRewrites counts Redis AOF rewrites (a fork and a rewrite of the
	// whole data set) that started during the phase: a cause of stalls.
	AOFRewrites int `json:"redis_aof_rewrites"`
	// RedisStallsMs is Redis's latency monitor (threshold 1 ms) over the
	// phase: the longest stall per event, e.g. aof-fsync-always.
	RedisStallsMs map[string]int64 `json:"redis_max_stall_ms,omitempty"`
	// RedisCommands are the commands Redis spent most time in (calls, and
	// main-thread time per call): what each request costs Redis.
	RedisCommands map[string]cmdStat `json:"redis_top_commands,omitempty"`
	// RedisAll is every command's calls and µs over the phase, kept with
	// --breakdown only.
	RedisAll map[string]cmdStat `json:"redis_commands,omitempty"`
	RedisIO  redisIO            `json:"redis_socket_io,omitempty"`
	// Others are the busiest processes not of this run during the phase.
	Others []procShare `json:"busiest_others,omitempty"`
	// Answered is the requests answered with success over the phase, warm-up
	// included (as its CPU is); PerRequestUs each process's CPU time per
	// such request, in µs (CPU per create, gateway and Redis: the goal
	// is ≤ 45 µs).
	Answered     uint64             `json:"answered,omitempty"`
	PerRequestUs map[string]float64 `json:"cpu_us_per_request,omitempty"`
}

// answered is the successful requests of the named phase (0 when it did
// not run).
func (r *report) answered(phase string) uint64 {
	if pc := r.phaseCPU(phase); pc != nil {
		return pc.Answered
	}
	return 0
}

func (r *report) phaseCPU(phase string) *phaseCPU {
	for i := range r.CPU {
		if r.CPU[i].Phase == phase {
			return &r.CPU[i]
		}
	}
	return nil
}

// serverAndRedis is a phase's CPU µs per answered request in the servers
// under test (gateways or the ceiling, summed) and in Redis.
func (pc *phaseCPU) serverAndRedis() (server, redis float64, ok bool) {
	if pc == nil || pc.Answered == 0 {
		return 0, 0, false
	}
	for name, us := range pc.PerRequestUs {
		switch name {
		case "redis":
			redis = us
		case "generator", "clickhouse":
		default:
			server += us
		}
	}
	return server, redis, true
}

type targetCheck struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	Got    string `json:"got"`
	Met    bool   `json:"met"`
}

func newReport(cfg *config) *report {
	return &report{Label: cfg.Label, Command: cfg.Command, Started: time.Now().UTC(), Errors: map[string]string{},
		Profiles: map[string][]string{},
		Sizes: map[string]any{
			"phase": cfg.Phase.String(), "short_phase": cfg.ShortPhase.String(), "concurrency": cfg.Concurrency, "read_concurrency": cfg.ReadConcurrency,
			"list_rows": cfg.ListRows, "list_total": cfg.ListTotal, "deep_page": cfg.DeepPage,
			"catchup_events": cfg.Catchup, "webhooks": cfg.Webhooks, "webhook_rate": cfg.HookRate,
			"aof_rewrite_min_size": cfg.AOFRewriteMin, "gateway_env": cfg.GatewayEnv,
		}}
}

// writeJSON stores the report as OUT/<timestamp>-<label>.json.
func (r *report) writeJSON(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("results dir: %w", err)
	}
	path := filepath.Join(dir, r.Started.Format("20060102T150405Z")+"-"+r.Label+".json")
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	return path, nil
}
