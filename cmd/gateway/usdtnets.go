package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// usdtNetworks is the process's copy of the USDT networks; prepare seeds
// the store from GATEWAY_USDT_NETWORKS and GATEWAY_USDT_SANDBOX_NETWORKS
// on a deployment's first start (usdt.Store.Seed) and loads the copy before
// the process serves. After that `gateway usdt config` is the source.
func usdtNetworks(cfg platform.Config, rdb redis.UniversalClient, log *slog.Logger) (*usdt.Watcher, func(context.Context) error, error) {
	live, err := command.ParseUSDTNetworks(cfg.USDTNetworks)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration: usdt-networks: %w", err)
	}
	sandbox, err := command.ParseUSDTNetworks(cfg.USDTSandboxNets)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration: usdt-sandbox-networks: %w", err)
	}
	seed := append(seedNetworks(live, false), seedNetworks(sandbox, true)...)
	store := usdt.NewStore(rdb)
	w := usdt.NewWatcher(store, log, time.Second/2)
	prepare := func(ctx context.Context) error {
		seeded, err := store.Seed(ctx, seed)
		if err != nil {
			return fmt.Errorf("seed usdt networks: %w", err)
		}
		if seeded {
			log.Info("usdt networks seeded from the environment", "networks", len(seed))
		}
		return w.Load(ctx)
	}
	return w, prepare, nil
}

// seedNetworks are the environment's NETWORK=ADDRESS pairs as networks with
// every other setting at its default.
func seedNetworks(list []schema.USDTNetwork, sandbox bool) []usdt.Network {
	out := make([]usdt.Network, len(list))
	for i, n := range list {
		out[i] = usdt.Network{Name: n.Name, Addresses: []string{n.Address}, Sandbox: sandbox}
	}
	return out
}
