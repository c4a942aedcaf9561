package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/ledger"
	"github.com/paygate/gateway/merchant"
)

// ledgerRole wires the ledger role: the Poster on the event streams and the
// Settler's passes, both over the process's one journal.
func ledgerRole(g *gateway, rdb redis.UniversalClient, dir *merchant.Directory, reg prometheus.Registerer, log *slog.Logger) error {
	j, err := g.journalOn(rdb, reg, log)
	if err != nil {
		return err
	}
	cfg := ledger.Config{Now: g.now.Now, ClaimIdle: g.claimIdle}
	p, err := ledger.NewPoster(cfg, rdb, j, dir, reg, log)
	if err != nil {
		return err
	}
	// The channels' zones name the day a paid order counts in.
	p.WithChannels(g.channelDirOn(rdb, log))
	s, err := ledger.NewSettler(cfg, rdb, j, reg, log)
	if err != nil {
		return err
	}
	g.workers = append(g.workers, func(ctx context.Context) {
		if err := p.Run(ctx); err != nil {
			log.Error("ledger poster stopped", "err", err)
		}
	}, s.Run)
	return nil
}

// journalOn is the process's journal, made once: its metrics can be
// registered only once, whichever role asks first.
func (g *gateway) journalOn(rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*journal.Journal, error) {
	if g.journal == nil {
		j, err := journal.New(journal.Config{Now: g.now.Now}, rdb, reg, log)
		if err != nil {
			return nil, err
		}
		g.journal = j
	}
	return g.journal, nil
}
