// Command chaos runs the fault suite (package chaos): the
// release gateway binary in six processes with split roles, a steady load,
// each scenario's fault, and the audit after it. It prints the Markdown
// table and, with --report, rewrites its section of RELIABILITY.md. It exits
// 1 when any audit fails.
//
// scripts/chaos.sh builds the binaries and cleans up; use `make chaos` or
// `make chaos-quick` rather than running this directly.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/paygate/gateway/chaos"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := chaos.Defaults()
	var scenarios string
	fs.StringVar(&cfg.Root, "root", cfg.Root, "the repository (its scripts/ start Redis and ClickHouse)")
	fs.StringVar(&cfg.Gateway, "gateway", cfg.Gateway, "release gateway binary")
	fs.StringVar(&cfg.DataDir, "data", cfg.DataDir, "directory for the servers' data, logs and pid files")
	fs.BoolVar(&cfg.Quick, "quick", false, "the reduced run of make chaos-quick")
	fs.StringVar(&scenarios, "scenarios", "", "comma-separated scenario names (default: all of the mode)")
	fs.DurationVar(&cfg.Settle, "settle", cfg.Settle, "how long an audit may wait for the system to settle")
	fs.StringVar(&cfg.Report, "report", "", "RELIABILITY.md whose generated section to rewrite")
	fs.BoolVar(&cfg.PlantLoss, "plant-loss", cfg.PlantLoss, "at the end, delete one order and require the audit to notice")
	fs.BoolVar(&cfg.PlantFailedPays, "plant-failed-pays", false, "send every sandbox pay with a wrong key: the run must fail its activity floors")
	fs.DurationVar(&cfg.ClientTimeout, "client-timeout", cfg.ClientTimeout, "how long the load waits for one answer before it counts the request failed")
	fs.StringVar(&cfg.Failures, "failures", "", "JSONL file to write every failed request of the load to, with its reason")
	fs.Float64Var(&cfg.Rates.Creates, "creates", cfg.Rates.Creates, "creates offered per second (4 methods)")
	fs.Float64Var(&cfg.Rates.Pays, "pays", cfg.Rates.Pays, "sandbox pays offered per second")
	fs.Float64Var(&cfg.Rates.SelfPays, "self-pays", cfg.Rates.SelfPays, "creates paid from the merchant's own balance per second")
	fs.Float64Var(&cfg.Rates.Transfers, "transfers", cfg.Rates.Transfers, "balance transfers through the payer pages per second")
	fs.Float64Var(&cfg.Rates.Queries, "queries", cfg.Rates.Queries, "queries (order and listing) per second")
	fs.Float64Var(&cfg.Floors.Fraction, "floor-fraction", cfg.Floors.Fraction, "share of the same run's baseline's answered creates per second each scenario must achieve")
	fs.Float64Var(&cfg.Floors.PerCreate, "floor-per-create", cfg.Floors.PerCreate, "share of the baseline's paid orders and balance payments per answered create each scenario must achieve")
	fs.IntVar(&cfg.Floors.Creates, "floor-creates", cfg.Floors.Creates, "least answered creates per scenario")
	fs.IntVar(&cfg.Floors.PaidWebhooks, "floor-paid", cfg.Floors.PaidWebhooks, "least paid orders with acknowledged webhooks per scenario")
	fs.IntVar(&cfg.Floors.BalancePayments, "floor-balance", cfg.Floors.BalancePayments, "least balance payments per scenario")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if scenarios != "" {
		cfg.Scenarios = strings.Split(scenarios, ",")
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	rep, err := chaos.Run(ctx, cfg, log)
	if rep == nil {
		return err
	}
	rep.Markdown(stdout)
	if cfg.Report != "" {
		if werr := rep.WriteInto(cfg.Report); werr != nil {
			return fmt.Errorf("%w (and the run: %v)", werr, err)
		}
	}
	return err
}
