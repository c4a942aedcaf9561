package main

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
)

// channelParts are the command role's channel machinery, one set per
// process: the routing data's copy (loaded before serving, polled each
// second) and the breaker, whose metrics are registered once. The create
// and confirm use cases take the breaker as their command.ChannelHealth.
type channelParts struct {
	dir    *channel.Directory
	health *channel.Health
}

// channelHealth wires the breaker over the command role's providers (its
// breaker-state series cover every configured channel).
func channelHealth(g *gateway, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*channelParts, error) {
	dir := channel.NewDirectory(rdb, time.Second, log)
	cfg := channel.HealthDefaults()
	cfg.Now = g.now.Now
	if g.providers != nil {
		cfg.Configured = g.providers
	}
	h, err := channel.NewHealth(cfg, channel.NewStore(rdb), dir, rdb, reg, log)
	if err != nil {
		return nil, err
	}
	g.prepare = append(g.prepare, dir.Load)
	g.workers = append(g.workers, dir.Run, h.Run)
	return &channelParts{dir: dir, health: h}, nil
}
