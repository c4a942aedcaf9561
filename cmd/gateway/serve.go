package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/web/admin"
	webserver "github.com/paygate/gateway/web/server"
)

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, wcfg := platform.Defaults(), dispatcher.Defaults()
	var demo demoFile
	// Every setting is read and checked here, before any connection.
	if err := parseConfig(&cfg, "serve", args, stderr, &wcfg, serveSettings{&cfg}, &demo); err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	stopProfile, err := startCPUProfile(cfg.CPUProfile, log)
	if err != nil {
		return err
	}
	defer stopProfile()
	applyGCPercent(cfg.GCPercent, os.Getenv("GOGC"), log)
	applyMemoryLimit(cfg.MemoryLimitMiB, os.Getenv("GOMEMLIMIT"), log)
	if cfg.ClockOffset != 0 {
		log.Warn("clock offset set: this process decides by a skewed clock (a fault-testing setting, never for production)",
			"clock_offset", cfg.ClockOffset.String())
	}
	reg := prometheus.NewRegistry()
	rdb, err := platform.OpenRedis(ctx, cfg.RedisURL, cfg.RedisCluster,
		platform.WithReplicaWait(replicaWait(cfg, reg)))
	if err != nil {
		return err
	}
	defer rdb.Close()
	var ch driver.Conn
	if cfg.Has(platform.RoleQuery) || cfg.Has(platform.RoleProjector) {
		if ch, err = platform.OpenClickHouseCluster(cfg.ClickHouseDSN, cfg.ClickHouseCluster); err != nil {
			return err
		}
		defer ch.Close()
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	// /metrics is on the operations listener only, never on the public one.
	opsLn, err := net.Listen("tcp", cfg.OpsAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (GATEWAY_OPS_ADDR, the operations listener): %w", cfg.OpsAddr, err)
	}
	ops := webserver.NewOpsApp(log, reg)
	g, err := wire(cfg, wcfg, rdb, ch, reg, nil, log)
	if err != nil {
		return err
	}
	// The operator console is on its own listener only, never the public one.
	adminLn, err := net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (GATEWAY_ADMIN_ADDR, the operator console): %w", cfg.AdminAddr, err)
	}
	adm := admin.NewApp(log, cfg.TrustedProxies, g.admin)
	for _, prep := range g.prepare {
		if err := prep(ctx); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
	}
	// Provider health for the operator console, from every process's own
	// counters (operator/health_publish.go).
	g.workers = append(g.workers, operator.NewHealthPublisher(rdb, reg, g.live, 0, log).Run)
	if demo.path != "" {
		g.workers = append(g.workers, demo.keep(merchant.NewStore(rdb), log))
	}
	var workers sync.WaitGroup
	for _, run := range g.workers {
		workers.Go(func() { run(ctx) })
	}
	errc := make(chan error, 3)
	go func() { errc <- g.app.Listener(ln) }()
	go func() { errc <- ops.Listener(opsLn) }()
	go func() { errc <- adm.Listener(adminLn) }()
	opsAddr, adminAddr := opsLn.Addr().String(), adminLn.Addr().String()
	defer func() { _ = ops.ShutdownWithTimeout(time.Second) }()
	defer func() { _ = adm.ShutdownWithTimeout(time.Second) }()
	if w := plainTextWarning(ln.Addr(), cfg.PublicURL, cfg.BehindTLS); w != "" {
		log.Warn(w, "addr", ln.Addr().String(), "public_url", cfg.PublicURL)
	}
	log.Info("gateway serving", "addr", ln.Addr().String(), "ops_addr", opsAddr, "admin_addr", adminAddr, "public_url", cfg.PublicURL, "roles", cfg.Roles)
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining", "drain", cfg.ShutdownDrain, "timeout", cfg.ShutdownTimeout)
	g.drain.Start()
	time.Sleep(cfg.ShutdownDrain)
	if err := g.app.ShutdownWithTimeout(cfg.ShutdownTimeout - cfg.ShutdownDrain); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	workers.Wait() // the background roles stop on ctx and finish what they hold
	log.Info("stopped")
	return nil
}

// gateway is one wired process: its HTTP app and its background roles.
type gateway struct {
	app     *fiber.App
	drain   *webserver.Drain
	prepare []func(ctx context.Context) error // before serving: loads what requests read
	workers []func(ctx context.Context)
	// now is the clock the roles decide by: the system's, moved by
	// GATEWAY_CLOCK_OFFSET for a fault test.
	now platform.Clock
	// claimIdle is GATEWAY_CLAIM_IDLE for every consumer group; 0: each
	// role's default.
	claimIdle time.Duration
	// live are the providers configured live in this process.
	live []string
	// admin is the operator console, served on its own listener.
	admin *admin.Console
	// providers are the adapters the command role wired; nil without it.
	providers *provider.Registry
	// journal is the process's one journal (journalOn), nil until a role
	// needs it.
	journal *journal.Journal
	// payouts is the process's one payout store (payoutsOn), nil until a
	// role needs it.
	payouts *payout.Store
	// endpoints is the process's one store of webhook endpoints
	// (endpointsOn), nil until a role needs it.
	endpoints *events.Store
	// deliveries are the endpoint events' deliveries the doors read and
	// queue (endpointDeliveries).
	deliveries *dispatcher.EventDeliveries
	// channels are the command role's routing copy and breaker; nil
	// without that role.
	channels *channelParts
	// chDir is the process's copy of the channels' routing data, one for
	// every role that reads it (channelDirOn).
	chDir *channel.Directory
}
