package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/fanout"
	"github.com/paygate/gateway/platform"
)

// eventsFanOut runs the events fan-out in the dispatcher role's process:
// it derives the catalogue's events from the streams and hands them to
// the dispatcher's endpoint deliveries (sched, which wakes its delivery
// loop at once), reading the merchants' endpoints from store, the one the
// dispatcher reads their secrets from.
func eventsFanOut(g *gateway, cfg platform.Config, wcfg dispatcher.Config, rdb redis.UniversalClient, store *events.Store,
	sched fanout.Scheduler, reg prometheus.Registerer, log *slog.Logger) error {
	j, err := g.journalOn(rdb, reg, log)
	if err != nil {
		return err
	}
	f, err := fanout.New(fanout.Config{BaseURL: cfg.PublicURL, Consumer: wcfg.Consumer, Block: wcfg.Block, ClaimIdle: wcfg.ClaimIdle},
		rdb, store, j, sched, reg, log)
	if err != nil {
		return err
	}
	g.workers = append(g.workers, func(ctx context.Context) {
		if err := f.Run(ctx); err != nil {
			log.Error("events fan-out stopped", "err", err)
		}
	})
	return nil
}
