package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/recon/families"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/admin"
	"github.com/paygate/gateway/web/orderview"
)

// adminConsole wires the operator console (served on GATEWAY_ADMIN_ADDR by
// serve) over the use cases the CLI calls too. ch may be nil: the audit
// page then says it searches on a process with ClickHouse. listing is the
// query role's listing use case when this process runs that role (nil:
// one is built here over the same read models). A callback URL an operator
// sets passes the webhook settings' address rules, as in the merchant console.
func adminConsole(g *gateway, cfg platform.Config, wcfg dispatcher.Config, rdb redis.UniversalClient, ch driver.Conn, accts *access.Accounts,
	listing *query.Listing, reg prometheus.Registerer, log *slog.Logger) (*admin.Console, error) {
	ips, err := platform.NewClientIP(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	store, err := orderStore(cfg, rdb)
	if err != nil {
		return nil, err
	}
	// Resends are only queued here; a running dispatcher role sends them.
	merchants, hooks := merchant.NewStore(rdb), dispatcher.NewWebhooks(rdb)
	logs := audit.NewLog(rdb)
	review, backlog := command.NewUSDTReview(store).WithWindow(cfg.USDTReview), command.NewUSDTBacklog(store)
	// A refund's lease outlives any provider call it waits on.
	exc, err := operator.NewExceptions(operator.ExceptionsConfig{KeepHandled: cfg.OrderTTL + cfg.OrderRetention + cfg.USDTReview,
		RefundLease: max(2*time.Minute, 2*cfg.ProviderTimeout)},
		rdb, store, backlog, hooks, logs)
	if err != nil {
		return nil, err
	}
	adapters, err := adminProviders(g, cfg, rdb, log)
	if err != nil {
		return nil, err
	}
	exc.WithRefunds(adapters)
	settings, err := operator.NewSettings(settingsConfig(cfg), fx.NewStore(rdb), usdt.NewStore(rdb), logs)
	if err != nil {
		return nil, err
	}
	// The process's one journal (its counter registered once).
	j, err := g.journalOn(rdb, reg, log)
	if err != nil {
		return nil, err
	}
	money, err := operator.NewMoney(moneyConfig(cfg), rdb, merchants, j, logs, log)
	if err != nil {
		return nil, err
	}
	// A change of a merchant's terms is remembered for maker-checker.
	payouts, err := g.payoutsOn(cfg, rdb, reg, log)
	if err != nil {
		return nil, err
	}
	money.WithPayouts(payouts)
	deps := admin.Deps{Money: money, Accounts: accts, ClientIP: ips, Merchants: operator.NewMerchants(merchants, logs, dispatcher.NewDestinations(wcfg.AllowPrivate)).WithJournal(j), Store: merchants,
		USDTReviews: operator.NewUSDTReviews(review, backlog, logs), Exceptions: exc, Settings: settings,
		Health: operator.NewHealth(rdb), Fees: operator.NewFees(fees.NewStore(rdb)), Live: g.live,
		Channels: operator.NewChannels(rdb, adapters, merchants).WithClock(g.now.Now)}
	if deps.Payouts, err = g.opPayoutsOn(cfg, rdb, reg, log); err != nil {
		return nil, err
	}
	if deps.Recon, err = adminRecon(g, ch, rdb, j, adapters, logs, log); err != nil {
		return nil, err
	}
	if deps.EpayTypes, err = epayTypesDesk(cfg, rdb, logs); err != nil {
		return nil, err
	}
	if ch != nil {
		deps.Audit, deps.Income = audit.NewSearcher(ch), query.NewStatements(ch)
		// The operator's read-only view of a merchant's console reads
		// what the console reads; it does not share the query role's
		// FairGate (one per process, on the public listener's registry).
		live, arch := query.NewRedisOrders(rdb), query.NewClickHouseOrders(ch)
		if listing == nil {
			if listing, err = query.NewListing(query.ListingDeps{Lister: arch, Totals: live, Rollups: arch}); err != nil {
				return nil, err
			}
		}
		deps.Orders = arch // the Providers page: every family that has orders
		reads := orderview.Reads{Live: live, Archive: arch, Listing: listing, Reports: arch, Webhooks: live, Refunds: live, Notifications: live}
		if deps.View, err = orderview.New(orderview.Config{Now: g.now}, reads, nil); err != nil {
			return nil, err
		}
	}
	names, err := payerNames(&cfg)
	if err != nil {
		return nil, err
	}
	return admin.New(admin.Config{Now: g.now, MethodNames: names}, deps, reg, log)
}

// adminProviders are the adapters an exception's refund goes through: the
// command role's when this process runs it, else the same set wired for
// the console alone (its call metrics on a registry of its own, so they
// do not collide with a command role's).
func adminProviders(g *gateway, cfg platform.Config, rdb redis.UniversalClient, log *slog.Logger) (*provider.Registry, error) {
	if g.providers != nil {
		return g.providers, nil
	}
	pm, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		return nil, err
	}
	set, err := wireProviders(cfg, rdb, pm, log)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return set.registry, nil
}

// adminRecon is the Reconciliation page's use case: the importer
// `gateway reconcile` wires too (recon/families), over the configured
// channels. Without ClickHouse the page shows the receivables and refuses
// an import (our payments are read there).
func adminRecon(g *gateway, ch driver.Conn, rdb redis.UniversalClient, j *journal.Journal, conf channel.Configured,
	logs operator.Auditor, log *slog.Logger) (*operator.Reconciliation, error) {
	var im *recon.Importer
	if ch != nil {
		im = families.NewImporter(ch, rdb, j, log)
	}
	r, err := operator.NewReconciliation(operator.ReconDefaults(), im, j, rdb, conf, logs)
	if err != nil {
		return nil, err
	}
	return r.WithClock(g.now.Now), nil
}
