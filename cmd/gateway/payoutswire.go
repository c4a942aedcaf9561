package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/platform"
	bscsim "github.com/paygate/gateway/web/sandbox/usdt/bsc"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"
)

// opPayoutsOn is the operator's payouts use case over the process's store.
func (g *gateway) opPayoutsOn(cfg platform.Config, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*operator.Payouts, error) {
	s, err := g.payoutsOn(cfg, rdb, reg, log)
	if err != nil {
		return nil, err
	}
	return operator.NewPayouts(s, g.now.Now), nil
}

// payoutsRole runs the payout sender over the rails GATEWAY_PAYOUT_RAIL
// names. With none it does not run: an approved USDT payout waits, with its
// money held, until a process with a rail takes it.
func payoutsRole(g *gateway, cfg platform.Config, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) error {
	rs := payoutRails(cfg)
	if len(rs) == 0 {
		log.Warn("payouts role without a rail (GATEWAY_PAYOUT_RAIL=none): approved USDT payouts wait")
		return nil
	}
	s, err := g.payoutsOn(cfg, rdb, reg, log)
	if err != nil {
		return err
	}
	scfg := payout.SenderDefaults()
	scfg.Lease = cfg.PayoutLease
	sender, err := payout.NewSender(scfg, s, rs, reg, log)
	if err != nil {
		return err
	}
	g.workers = append(g.workers, sender.Run)
	return nil
}

// payoutRails are the rails per network: the sandbox's simulated chains,
// which every command node serves under the public URL.
func payoutRails(cfg platform.Config) map[string]payout.Rail {
	if cfg.PayoutRail != "sandbox" {
		return nil
	}
	hc := &http.Client{Timeout: 15 * time.Second}
	return map[string]payout.Rail{
		"TRC20": rails.NewSim(cfg.PublicURL+tronsim.SandboxPath, hc),
		"BEP20": rails.NewSim(cfg.PublicURL+bscsim.SandboxPath, hc),
	}
}
