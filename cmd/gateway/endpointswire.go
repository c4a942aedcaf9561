package main

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/api"
)

// endpointsOn is the process's one store of merchants' webhook endpoints
// (its counter registered once), judging URLs by the dispatcher's address
// rules (GATEWAY_WEBHOOK_ALLOW_PRIVATE): the merchant API and the merchant
// console share it.
func (g *gateway) endpointsOn(wcfg dispatcher.Config, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*events.Store, error) {
	if g.endpoints != nil {
		return g.endpoints, nil
	}
	cfg := events.Defaults()
	cfg.Now = g.now.Now
	s, err := events.NewStore(cfg, rdb, dispatcher.NewDestinations(wcfg.AllowPrivate), reg, log)
	if err != nil {
		return nil, err
	}
	g.endpoints = s
	return s, nil
}

// endpointDeliveries is the process's one view of the endpoint events'
// deliveries the doors ask for an endpoint's deliveries, resends, replays
// and test events. It queues in Redis; whichever dispatcher runs takes
// what falls due. It counts nothing: the dispatcher role's own counts the
// deliveries, and a process of both roles would register them twice.
func (g *gateway) endpointDeliveries(wcfg dispatcher.Config, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (events.EndpointDeliveries, error) {
	if g.deliveries != nil {
		return g.deliveries, nil
	}
	eps, err := g.endpointsOn(wcfg, rdb, reg, log)
	if err != nil {
		return nil, err
	}
	wcfg.Now = g.now
	d, err := dispatcher.NewEventDeliveries(wcfg, rdb, eps, nil, log)
	if err != nil {
		return nil, err
	}
	g.deliveries = d
	return d, nil
}

// endpointsAPI mounts the webhook endpoints' merchant API on the command
// role's app, beside the merchant's other signed calls.
func endpointsAPI(g *gateway, cfg platform.Config, wcfg dispatcher.Config, rdb redis.UniversalClient, dir *merchant.Directory,
	limiter *platform.Limiter, ips *platform.ClientIP, reg prometheus.Registerer, log *slog.Logger) error {
	s, err := g.endpointsOn(wcfg, rdb, reg, log)
	if err != nil {
		return err
	}
	deliveries, err := g.endpointDeliveries(wcfg, rdb, reg, log)
	if err != nil {
		return err
	}
	l := cfg.Limits()
	a, err := events.NewAPI(events.APIConfig{ChangeLimit: l.Create, ReadLimit: l.Query, Now: g.now.Now}, s, deliveries, dir, limiter)
	if err != nil {
		return err
	}
	api.RegisterEndpoints(g.app, a, ips)
	return nil
}
