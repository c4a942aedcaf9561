package main

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/checkout"
)

// payers is the balance login the pages need: the logins and sessions,
// and the accounts' balances.
type payers struct {
	*merchant.Logins
	*merchant.Store
}

// checkoutPages wires the payer pages over the command side's use cases.
func checkoutPages(g *gateway, cfg platform.Config, rdb redis.UniversalClient, uc *command.UseCases, dir *merchant.Directory,
	limiter *platform.Limiter, pages fiber.Handler, returns checkout.ReturnLinks, reg prometheus.Registerer, log *slog.Logger) (*checkout.Pages, error) {
	limits := cfg.Limits()
	logins, err := merchant.NewLogins(merchant.LoginConfig{SessionTTL: cfg.SessionTTL, PerIP: limits.LoginIP, PerAccount: limits.LoginAcct},
		rdb, limiter, reg, log)
	if err != nil {
		return nil, err
	}
	ips, err := platform.NewClientIP(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	ccfg := checkout.Defaults()
	ccfg.PublicURL, ccfg.CSRFKey = cfg.PublicURL, []byte(cfg.CSRFKey)
	ccfg.PollInterval, ccfg.PollTimeout, ccfg.RedirectDelay = cfg.PagePollInterval, cfg.PagePollTimeout, cfg.PageRedirectDelay
	if ccfg.MethodNames, err = checkout.ParseMethodNames(cfg.MethodNames); err != nil {
		return nil, err
	}
	p, err := checkout.New(ccfg, checkout.Deps{Orders: orderPorts(uc), Payers: payers{logins, merchant.NewStore(rdb)}, ClientIP: ips,
		Limit: pages, Keys: platform.NewSharedKeys(rdb), Merchants: dir, Returns: returns}, reg, log)
	if err != nil {
		return nil, err
	}
	g.prepare = append(g.prepare, p.Prepare)
	return p, nil
}

// orderPorts hands each page port the command use case that serves it.
func orderPorts(uc *command.UseCases) checkout.OrderPorts {
	return checkout.OrderPorts{Reads: uc.Orders, Choose: uc.Choose, Cancel: uc.Cancel, Steps: uc.Confirm, USDT: uc.USDT,
		Balance: uc.Balance}
}
