package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	bscsim "github.com/paygate/gateway/web/sandbox/usdt/bsc"
	exchangesim "github.com/paygate/gateway/web/sandbox/usdt/exchange"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/reviewer"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/usdt/bsc"
	"github.com/paygate/gateway/usdt/exchange"
	"github.com/paygate/gateway/usdt/tron"
)

// usdtBackends are the chains and the exchange the reviewers read: the
// sandbox's simulators (served by every command node) for sandbox orders,
// the configured live endpoints for live ones.
type usdtBackends struct {
	chains map[bool]map[string]usdt.Chain
	exch   map[bool]usdt.Exchange
}

func (b *usdtBackends) Chain(sandbox bool, network string) (usdt.Chain, bool) {
	c, ok := b.chains[sandbox][network]
	return c, ok
}

func (b *usdtBackends) Exchange(sandbox bool) (usdt.Exchange, bool) {
	e, ok := b.exch[sandbox]
	return e, ok
}

func newUSDTBackends(cfg platform.Config) *usdtBackends {
	hc := &http.Client{Timeout: 15 * time.Second}
	live := liveUSDTConfigs(cfg)
	tronSandbox, bscSandbox, exSandbox := tron.Defaults(), bsc.Defaults(), exchange.Defaults()
	tronSandbox.BaseURL, bscSandbox.BaseURL = cfg.PublicURL+tronsim.SandboxPath, cfg.PublicURL+bscsim.SandboxPath
	exSandbox.BaseURL, exSandbox.APIKey, exSandbox.Secret = cfg.PublicURL+exchangesim.SandboxPath, exchange.SandboxAPIKey, exchange.SandboxSecret
	b := &usdtBackends{chains: map[bool]map[string]usdt.Chain{
		true:  {"TRC20": tron.NewClient(tronSandbox, hc), "BEP20": bsc.NewClient(bscSandbox, hc)},
		false: {},
	}, exch: map[bool]usdt.Exchange{true: exchange.NewClient(exSandbox, hc)}}
	if live.tron != nil {
		b.chains[false]["TRC20"] = tron.NewClient(*live.tron, hc)
	}
	if live.bsc != nil {
		b.chains[false]["BEP20"] = bsc.NewClient(*live.bsc, hc)
	}
	if live.exchange != nil {
		b.exch[false] = exchange.NewClient(*live.exchange, hc)
	}
	return b
}

// usdtLive are the live USDT backends the configuration names (nil: not
// configured).
type usdtLive struct {
	tron     *tron.Config
	bsc      *bsc.Config
	exchange *exchange.Config
}

// liveUSDTConfigs are the live backends' configurations, each over its
// package's defaults.
func liveUSDTConfigs(cfg platform.Config) usdtLive {
	var out usdtLive
	if cfg.TronURL != "" {
		c := tron.Defaults()
		c.BaseURL, c.APIKey = cfg.TronURL, cfg.TronAPIKey
		out.tron = &c
	}
	if cfg.BSCURL != "" {
		c := bsc.Defaults()
		c.BaseURL = cfg.BSCURL
		out.bsc = &c
	}
	if cfg.ExchangeURL != "" {
		c := exchange.Defaults()
		c.BaseURL, c.APIKey, c.Secret = cfg.ExchangeURL, cfg.ExchangeKey, cfg.ExchangeSecret
		out.exchange = &c
	}
	return out
}

// Validate lists the problems of the live backends configured.
func (l usdtLive) Validate() error {
	var errs []error
	if l.tron != nil {
		errs = append(errs, l.tron.Validate())
	}
	if l.bsc != nil {
		errs = append(errs, l.bsc.Validate())
	}
	if l.exchange != nil {
		errs = append(errs, l.exchange.Validate())
	}
	return errors.Join(errs...)
}

// reviewNetworks is the networks as data for the reviewers, with the
// sandbox's built-in networks when none are configured — the same the
// sandbox checkout offers (command.SandboxUSDTNetworks). Those take one
// confirmation, so a sandbox payer sees the result at once.
type reviewNetworks struct{ w *usdt.Watcher }

func (n reviewNetworks) Lookup(name string, sandbox bool) (usdt.Network, bool) {
	if v, ok := n.w.Lookup(name, sandbox); ok {
		return v, true
	}
	if !sandbox || len(n.w.For(true)) > 0 {
		return usdt.Network{}, false
	}
	for _, d := range command.SandboxUSDTNetworks() {
		if d.Name == name {
			net, err := usdt.Check(usdt.Network{Name: name, Addresses: []string{d.Address}, Sandbox: true, Confirmations: 1})
			return net, err == nil
		}
	}
	return usdt.Network{}, false
}

// usdtSims are the sandbox's simulated chains and exchange. Their state is
// in Redis, so any gateway answers for a transfer another one made.
type usdtSims struct {
	tron *tronsim.Sim
	bsc  *bscsim.Sim
	ex   *exchangesim.Sim
	nets reviewNetworks
}

func newUSDTSims(rdb redis.UniversalClient, nets reviewNetworks) *usdtSims {
	st := provider.NewRedisState(rdb)
	return &usdtSims{tron: tronsim.NewSim(tronsim.SimConfig{}, st), bsc: bscsim.NewSim(bscsim.SimConfig{}, st),
		ex: exchangesim.NewSim(exchangesim.SimConfig{}, st), nets: nets}
}

func (s *usdtSims) mount(r fiber.Router) {
	s.tron.Register(r.Group(tronsim.SandboxPath))
	s.bsc.Register(r.Group(bscsim.SandboxPath))
	s.ex.Register(r.Group(exchangesim.SandboxPath))
}

// Payers' addresses on the simulated chains.
const (
	simTronPayer = "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"
	simBSCPayer  = "0xc9ba7387d72c52cbb878b06968b3cc78d5802c8c"
)

// SimulateTransfer is a sandbox payer's wallet: the exact payable amount of
// the network's USDT to address, on the simulated chain, and the matching
// deposit row on the simulated exchange (for the exchange and dual modes).
func (s *usdtSims) SimulateTransfer(ctx context.Context, network, address, payable string) (string, error) {
	n, ok := s.nets.Lookup(network, true)
	if !ok {
		return "", fmt.Errorf("no sandbox network %s", network)
	}
	units, err := usdt.Units(payable, n.Decimals)
	if err != nil {
		return "", err
	}
	var hash string
	switch network {
	case "TRC20":
		hash, err = s.tron.AddTransfer(ctx, tronsim.TransferSpec{To: address, From: simTronPayer, Contract: n.Contract, Units: units, Success: true})
	case "BEP20":
		hash, err = s.bsc.AddTransfer(ctx, bscsim.TransferSpec{To: address, From: simBSCPayer, Contract: n.Contract, Units: units, Success: true})
	default:
		return "", fmt.Errorf("no simulated chain for %s", network)
	}
	if err != nil {
		return "", fmt.Errorf("simulate a %s transfer: %w", network, err)
	}
	if err := s.ex.AddDeposit(ctx, exchangesim.DepositSpec{TxID: hash, Network: n.ExchangeNetwork, Address: address, Amount: payable, Status: 1}); err != nil {
		return "", fmt.Errorf("simulate the exchange's deposit: %w", err)
	}
	return hash, nil
}

// reviewOrders is the command side's review outcomes for the reviewers;
// it needs only the order store, so a reviewer-only process has it too.
type reviewOrders struct{ r *command.USDTReview }

func (o reviewOrders) Order(ctx context.Context, id string) (*schema.Order, error) {
	return o.r.Order(ctx, id)
}

func (o reviewOrders) ApproveUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return o.r.Approve(ctx, id, hash, d)
}

func (o reviewOrders) RejectUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return o.r.Reject(ctx, id, hash, d)
}

func (o reviewOrders) EscalateUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return o.r.Escalate(ctx, id, hash, d)
}

func (o reviewOrders) RescheduleUSDT(ctx context.Context, id string, due time.Time) error {
	return o.r.Reschedule(ctx, id, due)
}

func (o reviewOrders) MoveUSDT(ctx context.Context, from, hash, payable string, d usdt.Decision) (*schema.Order, error) {
	return o.r.Move(ctx, from, hash, payable, d)
}

func (o reviewOrders) ProgressUSDT(ctx context.Context, id, hash string, p schema.USDTProgress) error {
	return o.r.Progress(ctx, id, hash, p)
}

// newReviewer wires the reviewer role over the order store.
func newReviewer(cfg platform.Config, rdb redis.UniversalClient, store *command.Store, nets reviewNetworks, now platform.Clock,
	reg prometheus.Registerer, log *slog.Logger) (*reviewer.Reviewer, error) {
	rv, backlog := command.NewUSDTReview(store).WithClock(now), command.NewUSDTBacklog(store)
	waiting := func(ctx context.Context) (int, error) {
		l, err := backlog.Reviews(ctx, command.BacklogWaiting)
		return len(l), err
	}
	rcfg := reviewer.Defaults()
	rcfg.Now = now
	return reviewer.New(rcfg, reviewer.Deps{Redis: rdb, Orders: reviewOrders{rv}, Networks: nets,
		Backends: newUSDTBackends(cfg), Waiting: waiting}, reg, log)
}
