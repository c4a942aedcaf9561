package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/command/provider"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	cfg := platform.Defaults()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.Bind(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	log := newLogger(stderr, cfg.LogLevel)
	rdb, err := platform.OpenRedis(ctx, cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	dir := merchant.NewDirectory(merchant.NewStore(rdb), log, 0)
	go dir.Run(ctx)

	app := platform.NewApp(log, reg)
	if cfg.Has(platform.RoleCommand) {
		h, err := commandHandlers(cfg, rdb, dir, reg, log)
		if err != nil {
			return err
		}
		h.Register(app)
	}
	if cfg.Has(platform.RoleQuery) {
		q, err := query.NewOrders(query.Config{PublicURL: cfg.PublicURL}, dir, query.NewRedisOrders(rdb), log)
		if err != nil {
			return err
		}
		app.Get("/api/order", q.Serve)
	}
	for _, role := range []string{platform.RoleProjector, platform.RoleDispatcher} {
		if cfg.Has(role) {
			log.Warn("role is not built yet; its events wait in the streams", "role", role)
		}
	}
	app.Use(platform.NotFound)

	errc := make(chan error, 1)
	go func() { errc <- app.Listener(ln) }()
	log.Info("gateway serving", "addr", ln.Addr().String(), "public_url", cfg.PublicURL, "roles", cfg.Roles)
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	if err := app.ShutdownWithTimeout(cfg.ShutdownTimeout); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

func commandHandlers(cfg platform.Config, rdb *redis.Client, dir *merchant.Directory, reg prometheus.Registerer, log *slog.Logger) (*command.Handlers, error) {
	rates, err := command.ParseUSDTRates(cfg.USDTRates)
	if err != nil {
		return nil, err
	}
	usdt, err := command.NewUSDT(rdb, rates, cfg.OrderTTL+cfg.OrderRetention)
	if err != nil {
		return nil, err
	}
	ips, err := platform.NewClientIP(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	store := command.NewStore(rdb, cfg.OrderRetention)
	// Live merchants get our own select flow; providers of the other methods
	// are configured as their adapters land, and until then answer
	// method_unavailable.
	providers := provider.NewRegistry(provider.Sandbox{BaseURL: cfg.PublicURL},
		map[schema.Method]provider.Provider{schema.MethodSelect: provider.Own{}})
	create, err := command.NewCreateOrder(command.Config{
		PublicURL: cfg.PublicURL, OrderTTL: cfg.OrderTTL, OrderRetention: cfg.OrderRetention,
	}, command.CreateDeps{Accounts: dir, Store: store, Providers: providers, USDT: usdt, ClientIP: ips}, reg, log)
	if err != nil {
		return nil, err
	}
	settle := create.NewSettle()
	return &command.Handlers{
		Create:   create,
		Sandbox:  command.NewSandboxOrders(dir, settle),
		Checkout: command.NewSandboxCheckout(store, settle),
		QR:       command.NewQRImage(store),
	}, nil
}
