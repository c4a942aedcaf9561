package main

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/api"
)

// payoutsOn is the process's one payout store (its counter registered
// once), configured from GATEWAY_PAYOUT_*: the merchant API, the merchant
// console and the operator console share it.
func (g *gateway) payoutsOn(cfg platform.Config, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*payout.Store, error) {
	if g.payouts != nil {
		return g.payouts, nil
	}
	j, err := g.journalOn(rdb, reg, log)
	if err != nil {
		return nil, err
	}
	s, err := payout.New(payoutConfig(cfg, g.now.Now), rdb, j, reg, log)
	if err != nil {
		return nil, err
	}
	g.payouts = s
	return s, nil
}

// payoutConfig is the payouts' policy from the process configuration.
func payoutConfig(cfg platform.Config, now func() time.Time) payout.Config {
	pc := payout.Defaults()
	ps := cfg.Payouts
	pc.CoolingOff, pc.CheckerWindow, pc.IdempotencyTTL, pc.MaxDestinations = ps.CoolingOff, ps.CheckerWindow, ps.IdempotencyTTL, ps.MaxDestinations
	pc.Now = now
	return pc
}

// payoutAPI mounts the payouts' merchant API on the command role's app.
func payoutAPI(g *gateway, cfg platform.Config, rdb redis.UniversalClient, dir *merchant.Directory, limiter *platform.Limiter,
	ips *platform.ClientIP, reg prometheus.Registerer, log *slog.Logger) error {
	s, err := g.payoutsOn(cfg, rdb, reg, log)
	if err != nil {
		return err
	}
	l := cfg.Limits()
	a, err := payout.NewAPI(payout.APIConfig{AskLimit: l.Create, ReadLimit: l.Query, Now: g.now.Now}, s, dir, limiter)
	if err != nil {
		return err
	}
	api.RegisterPayouts(g.app, a, ips)
	return nil
}
