package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/api"
	"github.com/paygate/gateway/web/checkout"
	"github.com/paygate/gateway/web/console"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
)

// consoleAccounts are the console accounts, sessions and login limits the
// configuration sets.
func consoleAccounts(cfg platform.Config, rdb redis.UniversalClient, limiter *platform.Limiter, reg prometheus.Registerer, log *slog.Logger) (*access.Accounts, error) {
	ac := access.Defaults()
	ac.IdleTimeout, ac.AbsoluteTimeout = cfg.ConsoleIdleTimeout, cfg.ConsoleAbsoluteTimeout
	l := cfg.Limits()
	ac.PerIP, ac.PerAccount = l.ConsoleLoginIP, l.ConsoleLoginAcct
	return access.New(ac, rdb, merchant.NewPasswordHasher(), limiter, reg, log)
}

// consoleParts are what the merchant console needs of a process running
// both the command and the query roles; the console is served only there.
type consoleParts struct {
	handlers *api.Handlers
	resend   *dispatcher.Webhooks
	live     *query.RedisOrders
	ch       *query.ClickHouseOrders
	gate     *query.FairGate
	listing  *query.Listing
}

// mountConsole serves /console on the public app with its pages and the
// self-service pages (Webhooks, Developers, Balance, Team & security), and runs its
// live feed.
func mountConsole(g *gateway, cfg platform.Config, wcfg dispatcher.Config, rdb redis.UniversalClient, ch driver.Conn, acc *access.Accounts,
	p consoleParts, reg prometheus.Registerer, log *slog.Logger) error {
	payouts, err := g.payoutsOn(cfg, rdb, reg, log)
	if err != nil {
		return err
	}
	endpoints, err := g.endpointsOn(wcfg, rdb, reg, log)
	if err != nil {
		return err
	}
	deliveries, err := g.endpointDeliveries(wcfg, rdb, reg, log)
	if err != nil {
		return err
	}
	pages, err := selfServicePages(cfg.PublicURL, wcfg, rdb, ch, acc, payouts, endpoints, deliveries, log)
	if err != nil {
		return err
	}
	ips, err := platform.NewClientIP(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	hub, err := console.NewHub(console.HubConfig{}, rdb, acc, reg, log)
	if err != nil {
		return err
	}
	store, err := orderStore(cfg, rdb)
	if err != nil {
		return err
	}
	acts := consoleActions{p.handlers.UseCases.Refund, p.handlers.UseCases.Cancel, p.handlers.UseCases.Sandbox}
	orders := consoleOrders{command.NewMerchantOrders(store, acts, audit.NewLog(rdb), g.now.Now), p.resend}
	reads := orderview.Reads{Live: p.live, Archive: p.ch, Listing: p.listing, Reports: p.ch, Webhooks: p.live, Refunds: p.live, Notifications: p.live}
	names, err := payerNames(&cfg)
	if err != nil {
		return err
	}
	con, err := console.New(console.Config{Secure: strings.HasPrefix(cfg.PublicURL, "https://"), Now: g.now, MethodNames: names},
		console.Deps{Auth: acc, ClientIP: ips, Reads: reads, Actions: orders,
			Audit: audit.NewLog(rdb), Live: hub, Gate: p.gate, Extensions: []frame.Extension{pages}}, reg, log)
	if err != nil {
		return err
	}
	con.Register(g.app)
	g.workers = append(g.workers, hub.Run)
	return nil
}

// consoleActions are the command use cases command.MerchantOrders runs.
type consoleActions struct {
	refund  *command.Refunds
	cancel  *command.Cancels
	sandbox *command.SandboxOrders
}

func (a consoleActions) Refund(ctx context.Context, o *schema.Order, ask command.RefundAsk) (*schema.Refund, error) {
	r, _, err := a.refund.Refund(ctx, o, ask)
	return r, err
}

func (a consoleActions) Cancel(ctx context.Context, id string) (*schema.Order, error) {
	return a.cancel.Cancel(ctx, id)
}

func (a consoleActions) SandboxMove(ctx context.Context, o *schema.Order, to schema.Status) (*schema.Order, error) {
	return a.sandbox.Drive(ctx, o, to)
}

// consoleOrders are the order page's use cases: the merchant's order
// actions and the one webhook resend.
type consoleOrders struct {
	*command.MerchantOrders
	resend *dispatcher.Webhooks
}

func (o consoleOrders) Resend(ctx context.Context, by access.Actor, id, refundID string) error {
	return o.resend.Resend(ctx, dispatcher.ResendAsk{PaymentID: id, RefundID: refundID, By: &by})
}

// payerNames are the method names the consoles show: the payers' (the
// deployment's GATEWAY_METHOD_NAMES over the checkout's words).
func payerNames(cfg *platform.Config) (map[string]map[string]string, error) {
	n, err := checkout.ParseMethodNames(cfg.MethodNames)
	if err != nil {
		return nil, err
	}
	return checkout.PayerNames(n)
}
