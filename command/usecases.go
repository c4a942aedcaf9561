package command

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
)

// UseCases are the command side's use cases, each a small type holding
// only what it needs. New builds them all over one set of collaborators;
// the HTTP API (web/api), the gateway CLI and the pages call these same
// values, so a rule lives in one place whichever door a call comes in by.
// docs/architecture.md maps each to its file.
type UseCases struct {
	Create        *CreateOrder      // a merchant's create (POST and GET /api/createorder)
	Orders        *Orders           // reads for the payer's pages: an order, its status, its expiry
	Choose        *Choose           // the select page: the methods offered, the payer's choice
	Confirm       *ConfirmChoice    // the two-step flows' second choice and their option lists
	Cancel        *Cancels          // the payer's and the merchant's cancel
	Refund        *Refunds          // a merchant's refund, through balances or the provider
	Balance       *BalancePay       // paying an order from a payer's balance
	Recovery      *TransferRecovery // finishing balance transfers and refunds a process died in
	USDT          *USDTPay          // usdt_direct's payer: network, transaction hash, sandbox transfer
	Review        *USDTReview       // outcomes of usdt_direct reviews: the reviewer's and the administrator's
	Backlog       *USDTBacklog      // what waits for the administrator, and each order's decisions
	Files         *OrderFiles       // what support reads about one order
	Settle        *Settle           // the one path of payment outcomes to an order
	Notifications *Notifications    // providers' notifications, verified then settled
	Sandbox       *SandboxOrders    // the sandbox driver (pay, fail)
	QR            *QRImage          // the payment code image
	Options       *Options          // the two-step flows' option lists, cached

	signed *signedCalls
	idem   *IdempotencyKeys
	ips    *platform.ClientIP
	cfg    Config
}

// Deps are the collaborators of the command side's use cases.
type Deps struct {
	Accounts   Accounts
	Store      *Store
	Providers  *provider.Registry
	USDT       *USDT
	USDTSim    USDTSimulator     // the sandbox's simulated chains; nil: none
	Networks   USDTNetworkSource // nil: Config's networks
	Rates      Rates
	Fees       FeeSchedules // the operator's fee schedules; nil: none charged
	ClientIP   *platform.ClientIP
	Limiter    *platform.Limiter
	Simulators Simulators // the sandbox's simulated providers, for its driver; nil: none
	// Router ranks a method's channels (over Providers); nil: each
	// method's configured channels on their default settings.
	Router *channel.Router
	// Caps counts capped channels' daily use; nil: over Store's Redis.
	Caps *channel.Caps
	// Health is the channels' breaker; nil: every channel is tried. The
	// merchant's group, which channels may serve, is its Account.Group.
	Health     ChannelHealth
	Registerer prometheus.Registerer
	Log        *slog.Logger
}

// Transfer recovery's pace (TransferRecovery): a sweep every 5 s for
// transfers older than 30 s, which leaves a live request time to finish its
// own.
const (
	defaultRecoveryInterval = 5 * time.Second
	defaultRecoveryGrace    = 30 * time.Second
)

// newRoutes is the channel routing of d, with its defaults.
func newRoutes(cfg Config, d Deps) *routes {
	r := &routes{providers: d.Providers, router: d.Router, caps: d.Caps, health: d.Health,
		notes: &notificationLog{rdb: d.Store.rdb, keep: cfg.OrderTTL + cfg.OrderRetention}, budget: cfg.ChannelBudget, log: d.Log}
	if r.router == nil {
		r.router = channel.NewRouter(channel.NewDirectory(nil, 0, d.Log), d.Providers)
	}
	if r.caps == nil {
		r.caps = channel.NewCaps(d.Store.rdb)
	}
	if r.health == nil {
		r.health = allowAll{}
	}
	return r
}

// New validates cfg and builds every use case of the command side.
func New(cfg Config, d Deps) (*UseCases, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(d.Registerer)
	if err != nil {
		return nil, fmt.Errorf("register command metrics: %w", err)
	}
	now := cfg.Now.Now
	log := d.Log
	offer := &usdtOffer{live: cfg.USDTNetworks, sandbox: cfg.USDTSandboxNetworks, source: d.Networks}
	limits := MethodLimits(cfg.MethodLimits)
	signed := &signedCalls{accounts: d.Accounts, limiter: d.Limiter, limit: cfg.CreateLimit, now: now}
	opts := &Options{accounts: d.Accounts, providers: d.Providers, ttl: time.Minute, cache: map[bool]cachedSystems{}}
	var fees FeeSchedules = noFees{}
	if d.Fees != nil {
		fees = d.Fees
	}
	init := &initiator{cfg: cfg, store: d.Store, options: opts, rates: d.Rates, fees: fees, route: newRoutes(cfg, d),
		groups: d.Accounts, log: log, now: now}
	xfer := &transfers{store: d.Store, accounts: d.Accounts, m: m, now: now}
	settle := &Settle{store: d.Store, m: m, now: now}
	review := &USDTReview{store: d.Store, moves: m.moves, now: now, window: cfg.USDTReviewWindow}
	uc := &UseCases{
		Create: &CreateOrder{cfg: cfg, signed: signed, store: d.Store, providers: d.Providers, usdt: d.USDT, offer: offer,
			limits: limits, init: init, m: m, log: log, now: now},
		Orders: &Orders{store: d.Store},
		Choose: &Choose{accounts: d.Accounts, providers: d.Providers, store: d.Store, usdt: d.USDT, offer: offer, limits: limits,
			init: init, log: log},
		Confirm: &ConfirmChoice{signed: signed, store: d.Store, providers: d.Providers, options: opts, rates: d.Rates, init: init},
		Cancel:  &Cancels{signed: signed, store: d.Store, settle: settle, usdt: d.USDT, log: log},
		Refund: &Refunds{signed: signed, store: d.Store, providers: d.Providers, xfer: xfer, m: m, log: log,
			now: now},
		Balance: &BalancePay{accounts: d.Accounts, store: d.Store, xfer: xfer, m: m},
		USDT: &USDTPay{store: d.Store, offer: offer, usdt: d.USDT, sim: d.USDTSim, window: cfg.USDTReviewWindow, log: log,
			now: now},
		Review:  review,
		Backlog: NewUSDTBacklog(d.Store),
		Files:   NewOrderFiles(d.Store),
		Settle:  settle,
		QR:      NewQRImage(d.Store),
		Options: opts,
		signed:  signed,
		idem:    newIdempotency(d.Store.rdb, cfg.IdempotencyTTL, m, log),
		ips:     d.ClientIP,
		cfg:     cfg,
	}
	uc.Recovery = &TransferRecovery{xfer: xfer, refunds: uc.Refund, store: d.Store, m: m, now: now,
		interval: defaultRecoveryInterval, grace: defaultRecoveryGrace, batch: 100, log: log}
	notes, err := newNotifications(cfg, d, settle)
	if err != nil {
		return nil, err
	}
	uc.Notifications = notes
	uc.Sandbox = &SandboxOrders{accounts: d.Accounts, settle: settle, sims: d.Simulators, notes: notes, limiter: d.Limiter,
		limit: cfg.QueryLimit}
	return uc, nil
}
