package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/usdt/exchange"
	bscsim "github.com/paygate/gateway/web/sandbox/usdt/bsc"
	exchangesim "github.com/paygate/gateway/web/sandbox/usdt/exchange"
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
	rs, err := payoutRails(cfg)
	if err != nil {
		return err
	}
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

// payoutRails are the rails per network. sandbox: the simulated TRON and
// BSC chains, and the simulated exchange's withdrawals for ERC20, which no
// simulated chain covers; every command node serves them under the public
// URL. exchange: the live exchange's withdrawals for every network.
func payoutRails(cfg platform.Config) (map[string]payout.Rail, error) {
	hc := &http.Client{Timeout: 15 * time.Second}
	ex := exchange.Defaults()
	switch cfg.PayoutRail {
	case "sandbox":
		ex.BaseURL, ex.APIKey, ex.Secret = cfg.PublicURL+exchangesim.SandboxPath, exchange.SandboxAPIKey, exchange.SandboxSecret
		erc, err := rails.NewExchange(rails.ExchangeDefaults(), exchange.NewClient(ex, hc), "ERC20")
		if err != nil {
			return nil, err
		}
		return map[string]payout.Rail{
			"TRC20": rails.NewSim(cfg.PublicURL+tronsim.SandboxPath, hc),
			"BEP20": rails.NewSim(cfg.PublicURL+bscsim.SandboxPath, hc),
			"ERC20": erc,
		}, nil
	case "exchange":
		ex.BaseURL, ex.APIKey, ex.Secret = cfg.ExchangeURL, cfg.ExchangeKey, cfg.ExchangeSecret
		if err := ex.Validate(); err != nil {
			return nil, fmt.Errorf("payout rail exchange: %w", err)
		}
		rs := map[string]payout.Rail{}
		for _, n := range []string{"TRC20", "BEP20", "ERC20"} {
			r, err := rails.NewExchange(rails.ExchangeDefaults(), exchange.NewClient(ex, hc), n)
			if err != nil {
				return nil, err
			}
			rs[n] = r
		}
		return rs, nil
	}
	return nil, nil
}
