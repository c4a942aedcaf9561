// Command gwbench measures the gateway against this machine's ceiling
// (a bare fiber server making one Redis script write per request): it
// starts gateway processes against a Redis and ClickHouse it is given,
// drives them with bench/loadgen, and prints a Markdown table while
// keeping the figures as JSON in bench-results/.
//
// scripts/bench.sh starts the servers and builds the binaries; use
// `make bench` or `make bench-quick` rather than running this directly.
//
// Scenarios, in order (each can be left out with --scenarios):
//
//	listing   load ListRows orders of one merchant among ListTotal into ClickHouse (setup, first)
//	ceiling   fiber + one EVALSHA (HSET + XADD): max at c=64, latency at 50%
//	create    createorder: max at c=64, latency at 50%; gateway RSS; Redis bytes per order
//	channels  a routed create (cryptohost) on gateways with 1 and 5 sandbox channels per method, alternated
//	order     action=order of live orders: max, latency at 50%
//	status    GET /payment/{id}/status of live orders (the pages' poll): max, latency at 50%
//	page      GET /payment/{id} of live orders (the select page rendered): max, latency at 50%
//	listing   action=orders page 1 and the deep page: max, latency at 50%
//	console   the merchant console's orders and overview pages of the listing merchant: max, latency at 50%;
//	          createorder max with 0, then 100, then 0 live order feeds open (needs listing)
//	projector catch-up of queued events; create-to-listed at 50% create load
//	webhooks  paid-to-delivered at a steady pay rate; deliveries/s draining a backlog
//	events    endpoint events/s draining a backlog, 3 endpoints per merchant
//	memory    ClickHouse bytes per stored row
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gwbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	b, err := newBench(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	defer b.close()
	if cfg.AOFRewriteMin != "" {
		if err := b.rdb.ConfigSet(ctx, "auto-aof-rewrite-min-size", cfg.AOFRewriteMin).Err(); err != nil {
			return fmt.Errorf("set auto-aof-rewrite-min-size: %w", err)
		}
		b.note("diagnostic run: Redis auto-aof-rewrite-min-size %s (not the configured 64mb)", cfg.AOFRewriteMin)
	}
	// Redis's own latency monitor, for the per-phase stalls.
	if err := b.rdb.ConfigSet(ctx, "latency-monitor-threshold", "1").Err(); err != nil {
		b.note("Redis latency monitor: %v", err)
	}
	b.rep.Machine = observeMachine(ctx, b.pids())
	b.logf("machine: %d CPUs, load %s, busiest others %v", b.rep.Machine.NumCPU, b.rep.Machine.LoadBefore, b.rep.Machine.Others)
	b.scenarios(ctx)
	b.rep.Machine.LoadAfter = loadAvg()
	b.rep.Finished = time.Now().UTC()
	b.rep.targets()
	path, err := b.rep.writeJSON(cfg.OutDir)
	if err != nil {
		return err
	}
	b.rep.markdown(stdout)
	fmt.Fprintf(stdout, "\nJSON: %s\n", path)
	if len(b.rep.Errors) > 0 {
		return fmt.Errorf("%d scenario(s) failed: see the report", len(b.rep.Errors))
	}
	return ctx.Err()
}

// scenarios runs what the configuration asks for; a scenario that fails is
// recorded in the report and the run goes on with the next.
func (b *bench) scenarios(ctx context.Context) {
	fail := func(name string, err error) bool {
		if err != nil {
			b.rep.Errors[name] = err.Error()
			b.logf("%s failed: %v", name, err)
		}
		return err != nil
	}
	cfg := b.cfg
	var listMerchant account
	listed := false
	if cfg.has("listing") {
		var err error
		listMerchant, err = listingSetup{b}.loadListing(ctx)
		listed = !fail("listing load", err)
	}
	if cfg.has("ceiling") && ctx.Err() == nil {
		fail("ceiling", createScenario{b}.runCeiling(ctx))
	}
	if (cfg.has("create") || cfg.has("order") || cfg.has("status") || cfg.has("page") || listed) && ctx.Err() == nil {
		b.readPhases(ctx, listMerchant, listed, fail)
	}
	if cfg.has("channels") && ctx.Err() == nil {
		fail("channels", channelsScenario{b}.runChannels(ctx))
	}
	if cfg.has("projector") && ctx.Err() == nil {
		fail("projector catch-up", projectorScenario{b}.runCatchup(ctx))
	}
	if (cfg.has("projector") || cfg.has("webhooks")) && ctx.Err() == nil {
		webhookScenario{b}.startDispatcherAtEnd(ctx)
		gw, err := startGateway(ctx, b.cfg, "gateway-all", "command,query,projector,dispatcher")
		if !fail("gateway (all roles)", err) {
			rss := sampleRSS(gw.pid())
			if cfg.has("projector") {
				fail("create-to-listed", projectorScenario{b}.runDelay(ctx, gw))
			}
			if cfg.has("webhooks") && ctx.Err() == nil {
				fail("webhooks (steady)", webhookScenario{b}.runWebhooksSteady(ctx, gw))
			}
			b.rep.Memory.GatewayRSSAllMiB = rss.stop()
			gw.stop()
		}
		if cfg.has("webhooks") && ctx.Err() == nil {
			fail("webhooks (backlog)", webhookScenario{b}.runWebhooksBacklog(ctx))
		}
	}
	if cfg.has("events") && cfg.Events > 0 && ctx.Err() == nil {
		fail("endpoint events (backlog)", eventsScenario{b}.runEventsBacklog(ctx))
	}
	if cfg.has("memory") && ctx.Err() == nil {
		fail("clickhouse memory", memoryScenario{b}.clickhouseMemory(ctx))
	}
	if cfg.has("cluster") && ctx.Err() == nil {
		fail("cluster", clusterScenario{b}.runCluster(ctx))
	}
	b.rep.Memory.AOFRewrites = b.redisInfo(ctx, "persistence")["aof_rewrites"]
}

// readPhases run against one gateway with the command and query roles
// only: no consumer competes for the CPU, as none does for the ceiling.
func (b *bench) readPhases(ctx context.Context, listMerchant account, listed bool, fail func(string, error) bool) {
	gw, err := startGateway(ctx, b.cfg, "gateway-cq", "command,query")
	if fail("gateway (command,query)", err) {
		return
	}
	defer gw.stop()
	reads := readScenario{b}
	var run *createRun
	if b.cfg.has("create") || b.cfg.has("order") || b.cfg.has("status") || b.cfg.has("page") {
		run, err = createScenario{b}.runCreate(ctx, gw)
		fail("createorder", err)
	}
	if b.cfg.has("order") && run != nil && ctx.Err() == nil {
		fail("action=order", reads.runOrder(ctx, gw, run))
	}
	if b.cfg.has("status") && run != nil && ctx.Err() == nil {
		fail("status poll", reads.runStatus(ctx, gw, run))
	}
	if b.cfg.has("page") && run != nil && ctx.Err() == nil {
		fail("payment page", reads.runPage(ctx, gw, run))
	}
	if listed && ctx.Err() == nil {
		fail("action=orders", reads.runListing(ctx, gw, listMerchant))
		fail("reports", reads.runReports(ctx, gw, listMerchant))
	}
	if listed && b.cfg.has("console") && ctx.Err() == nil {
		fail("console", consoleScenario{b}.runConsole(ctx, gw, listMerchant))
	}
}
