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
	dir := g.channelDirOn(rdb, log)
	cfg := channel.HealthDefaults()
	cfg.Now = g.now.Now
	if g.providers != nil {
		cfg.Configured = g.providers
	}
	h, err := channel.NewHealth(cfg, channel.NewStore(rdb), dir, rdb, reg, log)
	if err != nil {
		return nil, err
	}
	g.workers = append(g.workers, h.Run)
	return &channelParts{dir: dir, health: h}, nil
}

// channelDirOn is the process's copy of the routing data, made, loaded
// before serving and polled once, whichever role (command, ledger) asks
// first: two copies would poll Redis twice for the same data.
func (g *gateway) channelDirOn(rdb redis.UniversalClient, log *slog.Logger) *channel.Directory {
	if g.chDir == nil {
		g.chDir = channel.NewDirectory(rdb, time.Second, log)
		g.prepare = append(g.prepare, g.chDir.Load)
		g.workers = append(g.workers, g.chDir.Run)
	}
	return g.chDir
}
