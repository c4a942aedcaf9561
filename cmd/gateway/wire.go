package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/api"
	"github.com/paygate/gateway/web/api/apidoc"
	"github.com/paygate/gateway/web/notify"
	"github.com/paygate/gateway/web/sandbox/simkit"
	webserver "github.com/paygate/gateway/web/server"
)

// wire builds the roles cfg names over the given clients; ch may be nil when
// no role needs ClickHouse. Nothing here dials or starts.
func wire(cfg platform.Config, wcfg dispatcher.Config, rdb redis.UniversalClient, ch driver.Conn, reg prometheus.Registerer, gather prometheus.Gatherer, log *slog.Logger) (*gateway, error) {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		platform.NewStreamCollector(rdb))
	now := platform.OffsetClock(cfg.ClockOffset)
	accounts := merchant.NewStore(rdb).WithClock(now)
	dir := merchant.NewDirectory(accounts, log, 0)
	g := &gateway{app: webserver.NewAppReading(cfg.HTTPReadTimeout, cfg.TrustedProxies, log, reg, gather), drain: &webserver.Drain{},
		workers: []func(context.Context){dir.Run}, now: now, claimIdle: cfg.ClaimIdle}
	g.app.Use(g.drain.Middleware)
	limiter, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, reg, log)
	if err != nil {
		return nil, err
	}
	// One set of console accounts per process: both consoles log in through
	// it, and its metrics can be registered only once.
	acc, err := consoleAccounts(cfg, rdb, limiter, reg, log)
	if err != nil {
		return nil, err
	}
	// The USDT networks as data: the checkout offers them, the reviewers
	// check against them.
	var nets *usdt.Watcher
	if cfg.Has(platform.RoleCommand) || cfg.Has(platform.RoleReviewer) {
		w, prepare, err := usdtNetworks(cfg, rdb, log)
		if err != nil {
			return nil, err
		}
		nets = w
		g.prepare = append(g.prepare, prepare)
		g.workers = append(g.workers, w.Run)
	}
	// The epay door's type words: its create maps them, its notifications
	// name them, wherever those roles run.
	types, err := epayTypes(cfg, rdb)
	if err != nil {
		return nil, err
	}
	var cp consoleParts
	if cfg.Has(platform.RoleCommand) {
		h, workers, err := commandHandlers(g, cfg, rdb, dir, limiter, nets, reg, log)
		if err != nil {
			return nil, err
		}
		// The pages first: their browser forms to the providers' confirm
		// endpoints are answered before the JSON API's routes.
		pages, err := checkoutPages(g, cfg, rdb, h.UseCases, dir, limiter, h.Pages, epay.Returns{Accounts: dir, Types: types}, reg, log)
		if err != nil {
			return nil, err
		}
		pages.Register(g.app)
		h.Page = pages.Render
		h.PageError = func(c *fiber.Ctx, e api.HostedError) error {
			return pages.RenderCreateError(c, e.Err, e.Lang, e.Back)
		}
		h.Register(g.app)
		if err := mountEpay(g.app, cfg, wcfg, h.UseCases, dir, types, log); err != nil {
			return nil, err
		}
		notify.Register(g.app, h.UseCases.Notifications, h.UseCases.ClientIP())
		g.workers = append(g.workers, workers...)
		// A merchant's webhook resend only queues an attempt in Redis, so
		// the command side, which takes the merchant's signed calls, serves it.
		resend, err := dispatcher.NewResendAPI(dispatcher.ResendConfig{Limit: cfg.Limits().Create}, rdb, dir, limiter)
		if err != nil {
			return nil, err
		}
		g.app.Post("/api/order/webhooks/resend", api.Resend(resend))
		// Payouts are asked for and read on the command side, beside the
		// merchant's other signed calls (the OpenAPI document describes them).
		if err := payoutAPI(g, cfg, rdb, dir, limiter, h.UseCases.ClientIP(), reg, log); err != nil {
			return nil, err
		}
		if err := endpointsAPI(g, cfg, wcfg, rdb, dir, limiter, h.UseCases.ClientIP(), reg, log); err != nil {
			return nil, err
		}
		cp.handlers, cp.resend = h, dispatcher.NewWebhooks(rdb).WithClock(g.now.Now)
	}
	if cfg.Has(platform.RoleQuery) {
		chOrders, live := query.NewClickHouseOrders(ch), query.NewRedisOrders(rdb)
		gate, err := query.NewFairGate(query.FairGateConfig{Concurrency: cfg.ClickHouseReads, PerMerchant: cfg.ClickHouseReadQueue,
			PerMerchantInFlight: cfg.ClickHouseReadPerMerchant, SharedInFlight: cfg.ClickHouseReadShared, MaxWait: cfg.ClickHouseReadWait}, reg)
		if err != nil {
			return nil, err
		}
		// One listing use case for action=orders and the console's orders page.
		listing, err := query.NewListing(query.ListingDeps{Lister: chOrders, Totals: live, Rollups: chOrders})
		if err != nil {
			return nil, err
		}
		q, err := query.NewOrders(query.Config{PublicURL: cfg.PublicURL, QueryLimit: cfg.Limits().Query, ReportLimit: cfg.Limits().Report, ReportMaxRange: cfg.ReportMaxRange}, dir,
			query.Sources{Live: live, Archive: chOrders, Listing: listing, Webhooks: live, Refunds: live, Reports: chOrders, Gate: gate}, limiter, log)
		if err != nil {
			return nil, err
		}
		g.app.Get("/api/order", api.Orders(q))
		// The merchant's balances (Redis, the journal's) and transactions
		// (the journal's copy in ClickHouse): docs/statements.md.
		jr, err := g.journalOn(rdb, reg, log)
		if err != nil {
			return nil, err
		}
		var st *query.Statements
		if ch != nil {
			st = query.NewStatements(ch)
		}
		bal, err := query.NewBalances(query.Config{PublicURL: cfg.PublicURL, QueryLimit: cfg.Limits().Query, ReportLimit: cfg.Limits().Report},
			dir, jr, st, limiter)
		if err != nil {
			return nil, err
		}
		g.app.Get("/api/balance", api.Balance(bal))
		cp.live, cp.ch, cp.gate, cp.listing = live, chOrders, gate, listing
	}
	if cp.handlers != nil && cp.live != nil {
		if err := mountConsole(g, cfg, wcfg, rdb, ch, acc, cp, reg, log); err != nil {
			return nil, err
		}
	}
	// The epay door's api.php: its reads and its refund (docs/epay-api.md).
	if cp.handlers != nil && cp.live != nil {
		if err := mountEpayAPI(g, cfg, rdb, dir, limiter, cp, types, reg, log); err != nil {
			return nil, err
		}
	}
	if cfg.Has(platform.RoleProjector) {
		p, err := projector.New(projector.Config{ClaimIdle: cfg.ClaimIdle}, rdb, projector.NewClickHouse(ch), reg, log)
		if err != nil {
			return nil, err
		}
		// The report rollups are kept beside the projector that marks them
		// (docs/reporting.md); several projectors fold the same hours twice,
		// which is harmless.
		roll, err := query.NewRollup(query.RollupConfig{}, ch, reg, log)
		if err != nil {
			return nil, err
		}
		g.workers = append(g.workers, func(ctx context.Context) {
			if err := p.Run(ctx); err != nil {
				log.Error("projector stopped", "err", err)
			}
		}, roll.Run)
		// The audit log's copy in ClickHouse, which the consoles search.
		ap, err := audit.NewProjector(audit.ProjectorConfig{ClaimIdle: cfg.ClaimIdle}, rdb, ch, reg, log)
		if err != nil {
			return nil, err
		}
		g.workers = append(g.workers, func(ctx context.Context) {
			if err := ap.Run(ctx); err != nil {
				log.Error("audit projector stopped", "err", err)
			}
		})
		// The journal's copy and its days, which the statements read
		// (docs/statements.md).
		jp, err := projector.NewJournalProjection(projector.JournalConfig{ClaimIdle: cfg.ClaimIdle}, rdb, ch, reg, log)
		if err != nil {
			return nil, err
		}
		g.workers = append(g.workers, func(ctx context.Context) {
			if err := jp.Run(ctx); err != nil {
				log.Error("journal projection stopped", "err", err)
			}
		})
	}
	if cfg.Has(platform.RoleReviewer) {
		store, err := orderStore(cfg, rdb)
		if err != nil {
			return nil, err
		}
		rv, err := newReviewer(cfg, rdb, store, reviewNetworks{nets}, g.now, reg, log)
		if err != nil {
			return nil, err
		}
		g.workers = append(g.workers, func(ctx context.Context) {
			if err := rv.Run(ctx); err != nil {
				log.Error("reviewer stopped", "err", err)
			}
		})
	}
	if cfg.Has(platform.RoleDispatcher) {
		wcfg.Retention, wcfg.Now, wcfg.EpayTypes = cfg.OrderRetention, g.now, types
		wcfg.ClaimIdle = cmp.Or(cfg.ClaimIdle, wcfg.ClaimIdle)
		d, err := dispatcher.New(wcfg, rdb, dispatcher.AccountKeysAt(g.now, dir.Lookup, accounts.EnsureWebhookSecret), reg, log)
		if err != nil {
			return nil, err
		}
		// Endpoint events: each attempt reads its endpoint's secrets, and
		// an endpoint failing for days is disabled through the store.
		eps, err := events.NewStore(events.Defaults(), rdb, dispatcher.NewDestinations(wcfg.AllowPrivate), nil, log)
		if err != nil {
			return nil, err
		}
		d.WithEndpoints(eps)
		g.workers = append(g.workers, func(ctx context.Context) {
			if err := d.Run(ctx); err != nil {
				log.Error("dispatcher stopped", "err", err)
			}
		})
		if err := eventsFanOut(g, cfg, wcfg, rdb, eps, d.Events(), reg, log); err != nil {
			return nil, err
		}
	}
	if cfg.Has(platform.RoleLedger) {
		if err := ledgerRole(g, rdb, dir, reg, log); err != nil {
			return nil, err
		}
	}
	if cfg.Has(platform.RolePayouts) {
		if err := payoutsRole(g, cfg, rdb, reg, log); err != nil {
			return nil, err
		}
	}
	checks := []platform.Check{{Name: "redis", Ping: func(ctx context.Context) error { return rdb.Ping(ctx).Err() }}}
	if ch != nil {
		checks = append(checks, platform.Check{Name: "clickhouse", Ping: ch.Ping})
	}
	g.app.Get("/readyz", webserver.Ready(g.drain, checks...))
	doc, err := apidoc.ForServer(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	g.app.Get("/openapi.json", apidoc.Handler(doc))
	epayDoc, err := apidoc.EpayForServer(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	g.app.Get("/openapi-epay.json", apidoc.Handler(epayDoc))
	reg.MustRegister(platform.NewDependencyCollector(checks...))
	g.app.Use(webserver.NotFound)
	if g.admin, err = adminConsole(g, cfg, wcfg, rdb, ch, acc, cp.listing, reg, log); err != nil {
		return nil, err
	}
	return g, nil
}

func commandHandlers(g *gateway, cfg platform.Config, rdb redis.UniversalClient, dir *merchant.Directory, limiter *platform.Limiter, nets *usdt.Watcher,
	reg prometheus.Registerer, log *slog.Logger) (*api.Handlers, []func(context.Context), error) {
	rates, prepare, err := fxRates(cfg, rdb, log)
	if err != nil {
		return nil, nil, err
	}
	// The fee schedules, like the rates: a copy loaded before serving and
	// refreshed when an operator changes one (fees.Resolver).
	feeCopy := fees.NewResolver(fees.NewStore(rdb), time.Second, log)
	g.prepare = append(g.prepare, prepare, feeCopy.Load)
	usdt, err := command.NewUSDT(rdb, rates, cfg.OrderTTL+cfg.USDTReview+cfg.OrderRetention)
	if err != nil {
		return nil, nil, err
	}
	ips, err := platform.NewClientIP(cfg.TrustedProxies)
	if err != nil {
		return nil, nil, err
	}
	pm, err := provider.NewMetrics(reg)
	if err != nil {
		return nil, nil, err
	}
	provs, err := wireProviders(cfg, rdb, pm, log)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration: %w", err)
	}
	store, err := orderStore(cfg, rdb)
	if err != nil {
		return nil, nil, err
	}
	g.prepare = append(g.prepare, openBalancesStep(rdb, store.Journal(), log))
	sims := newUSDTSims(rdb, reviewNetworks{nets})
	sims.mount(g.app)
	limits := cfg.Limits()
	methodLimits, err := command.ParseMethodLimits(cfg.MethodLimits)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration: %w", err)
	}
	// The channels' routing data, like the fee schedules: a copy loaded
	// before serving and polled (channel.Directory), and the breaker
	// routing asks and tells.
	g.providers = provs.registry
	if g.channels, err = channelHealth(g, rdb, reg, log); err != nil {
		return nil, nil, err
	}
	uc, err := command.New(command.Config{
		PublicURL: cfg.PublicURL, OrderTTL: cfg.OrderTTL, OrderRetention: cfg.OrderRetention,
		CreateLimit: limits.Create, QueryLimit: limits.Query, MethodLimits: methodLimits,
		USDTReviewWindow: cfg.USDTReview, ChannelBudget: cfg.ChannelBudget, Now: g.now,
	}, command.Deps{Accounts: dir, Store: store, Providers: provs.registry, USDT: usdt, USDTSim: sims, Networks: nets, Rates: rates,
		Fees: feeCopy, ClientIP: ips, Limiter: limiter, Simulators: provs.simulators,
		Router: channel.NewRouter(g.channels.dir, provs.registry), Caps: channel.NewCaps(rdb), Health: g.channels.health,
		Registerer: reg, Log: log})
	if err != nil {
		return nil, nil, err
	}
	h := &api.Handlers{
		UseCases: uc,
		Simulators: func(r fiber.Router) {
			r.Use(simkit.WithMerchantNames(simMerchantNames(store, dir)))
			provs.mount(r)
		},
		Pages: webserver.PerIP(limiter, platform.ClassPages, limits.Pages, ips),
	}
	log.Info("providers", "live", provs.live)
	g.providers = provs.registry
	for _, m := range provs.live {
		g.live = append(g.live, string(m))
	}
	// Balance transfers a process died in the middle of are finished by
	// whichever command node sweeps first (UseCases.Recovery's pace).
	return h, []func(context.Context){uc.Settle.NewExpirer(rdb, time.Second, log).Run, rates.Run, feeCopy.Run, uc.Recovery.Run}, nil
}

// fxRates is the copy of the rates every create converts with; prepare
// seeds it from GATEWAY_USDT_RATES where no rate of those pairs was set yet
// and loads it before the process serves.
func fxRates(cfg platform.Config, rdb redis.UniversalClient, log *slog.Logger) (*fx.Rates, func(context.Context) error, error) {
	store := fx.NewStore(rdb)
	seed, err := command.ParseUSDTRates(cfg.USDTRates)
	if err != nil {
		return nil, nil, err
	}
	rates := fx.NewRates(store, time.Second, log)
	prepare := func(ctx context.Context) error {
		for cur, micros := range seed {
			if err := store.Seed(ctx, fx.Pair{Base: "USDT", Quote: cur}, fx.Rate(micros)); err != nil {
				return err
			}
		}
		return rates.Load(ctx)
	}
	return rates, prepare, nil
}

// orderStore is the order store with the configured per-method TTLs.
func orderStore(cfg platform.Config, rdb redis.UniversalClient) (*command.Store, error) {
	return command.NewStore(rdb, cfg.OrderTTL, cfg.OrderRetention).WithMethodTTLs(cfg.OrderTTLMethods), nil
}

// replicaWait is the Redis Cluster write acknowledgement of serve; its
// metrics exist on a single node too, at zero, so dashboards need no
// second layout.
func replicaWait(cfg platform.Config, reg prometheus.Registerer) *platform.ReplicaWait {
	return platform.NewReplicaWait(cfg.RedisWaitReplicas, cfg.RedisWaitTimeout, reg)
}

// simMerchantNames names the merchant of a sandbox order for the simulated
// provider pages; "" when the order or its merchant cannot be read (the
// page still works without it).
func simMerchantNames(store *command.Store, dir *merchant.Directory) simkit.MerchantNamer {
	return func(ctx context.Context, orderID string) string {
		o, err := store.Get(ctx, orderID)
		if err != nil {
			return ""
		}
		a, err := dir.Lookup(ctx, o.AppID)
		if err != nil {
			return ""
		}
		return a.Name
	}
}
