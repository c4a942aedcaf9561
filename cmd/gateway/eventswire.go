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
// engine's endpoint deliveries (its ScheduleEvent). An engine without them
// runs no fan-out, and says so: merchants' endpoints would get nothing.
func eventsFanOut(g *gateway, cfg platform.Config, wcfg dispatcher.Config, rdb redis.UniversalClient, engine any,
	reg prometheus.Registerer, log *slog.Logger) error {
	sched, ok := engine.(fanout.Scheduler)
	if !ok {
		log.Error("events fan-out not started: this dispatcher schedules no deliveries to webhook endpoints")
		return nil
	}
	// Reads only: the endpoints' changes (and their metrics) are the doors'.
	store, err := events.NewStore(events.Defaults(), rdb, dispatcher.NewDestinations(wcfg.AllowPrivate), nil, log)
	if err != nil {
		return err
	}
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
