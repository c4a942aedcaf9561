package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/paygate/gateway/platform"
)

// settings are more of a command's configuration: bound beside the
// process configuration, validated with it.
type settings interface {
	Bind(fs *flag.FlagSet)
	Validate() error
}

// parseConfig binds the process flags and environment (and those of more
// settings) and validates them all, listing every problem at once.
func parseConfig(cfg *platform.Config, name string, args []string, stderr io.Writer, more ...settings) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.Bind(fs)
	for _, s := range more {
		s.Bind(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes flags only, not %q", name, fs.Args())
	}
	errs := []error{cfg.Validate()}
	for _, s := range more {
		errs = append(errs, s.Validate())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}

// migrate applies the embedded ClickHouse migrations to GATEWAY_CLICKHOUSE_DSN,
// or with GATEWAY_CLICKHOUSE_CLUSTER to every node of that cluster.
func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := platform.Defaults()
	if err := parseConfig(&cfg, "migrate", args, stderr); err != nil {
		return err
	}
	var applied []string
	var err error
	if cfg.ClickHouseCluster != "" {
		applied, err = platform.MigrateCluster(ctx, cfg.ClickHouseDSN, cfg.ClickHouseCluster)
	} else {
		applied, err = platform.Migrate(ctx, cfg.ClickHouseDSN)
	}
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "migrations: up to date")
	}
	for _, m := range applied {
		fmt.Fprintln(stdout, "migrations: applied", m)
	}
	return nil
}
