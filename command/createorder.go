package command

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// CreateOrder serves POST and GET /api/createorder: one code path from
// parameters to a stored order, two ways of answering.
type CreateOrder struct {
	cfg       Config
	accounts  Accounts
	store     *Store
	providers *provider.Registry
	usdt      *USDT
	usdtSim   USDTSimulator
	networks  USDTNetworkSource
	rates     Rates
	options   *Options
	clientIP  *platform.ClientIP
	limiter   *platform.Limiter
	log       *slog.Logger
	m         *metrics
	now       func() time.Time
	afterStep func(step int) error // tests: an error stands for the process dying after a transfer step
	idem      *idempotency
}

// CreateDeps are the collaborators of CreateOrder.
type CreateDeps struct {
	Accounts  Accounts
	Store     *Store
	Providers *provider.Registry
	USDT      *USDT
	USDTSim   USDTSimulator     // the sandbox's simulated chains; nil: none
	Networks  USDTNetworkSource // nil: Config's networks
	Rates     Rates
	ClientIP  *platform.ClientIP
	Limiter   *platform.Limiter
}

// NewCreateOrder wires the create use case.
func NewCreateOrder(cfg Config, d CreateDeps, reg prometheus.Registerer, log *slog.Logger) (*CreateOrder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("register command metrics: %w", err)
	}
	h := &CreateOrder{cfg: cfg, accounts: d.Accounts, store: d.Store, providers: d.Providers,
		usdt: d.USDT, usdtSim: d.USDTSim, networks: d.Networks, rates: d.Rates, clientIP: d.ClientIP, limiter: d.Limiter, log: log, m: m, now: cfg.Now.Now}
	h.idem = newIdempotency(d.Store.rdb, cfg.IdempotencyTTL, m, log)
	h.options = &Options{create: h, ttl: time.Minute, cache: map[bool]cachedSystems{}}
	return h, nil
}

// createData is the create response's data (SPEC.md).
type createData struct {
	PaymentID       string  `json:"paymentId"`
	OrderID         string  `json:"orderId"`
	RedirectURL     *string `json:"redirectUrl"`
	SelectURL       string  `json:"selectUrl,omitempty"`
	NextAction      string  `json:"nextAction,omitempty"`
	PayableAmount   string  `json:"payableAmount,omitempty"`
	QRImageURL      *string `json:"qrImageUrl"`
	Status          int     `json:"status"`
	StatusString    string  `json:"statusString"`
	PaidWithBalance bool    `json:"paidWithBalance"`
	Idempotent      bool    `json:"idempotent"`
	Amount          string  `json:"amount"`
	Currency        string  `json:"currency"`
	PaymentMethod   string  `json:"paymentMethod"`
	ClientOrderID   string  `json:"clientOrderId,omitempty"`
	CreatedAt       string  `json:"createdAt"`
}

// Post answers JSON.
func (h *CreateOrder) Post(c *fiber.Ctx) error {
	p, err := ParseJSONParams(c.Body())
	if err != nil {
		return err
	}
	o, replay, err := h.create(c.UserContext(), p, h.requestIP(c), false)
	if err != nil {
		return err
	}
	return platform.OK(c, h.data(o, replay))
}

// Get answers the hosted flow: errors as a page, success as a redirect to
// where the merchant would send the payer. It stands where no payer pages
// are mounted; Hosted is what a command node serves.
func (h *CreateOrder) Get(c *fiber.Ctx) error {
	return h.Hosted(func(c *fiber.Ctx, o *schema.Order) error {
		l := schema.OrderLinks(o, h.cfg.PublicURL)
		return c.Redirect(l.MerchantRedirect(h.cfg.PublicURL, o.ID), fiber.StatusFound)
	}, nil)(c)
}

// Hosted is GET /api/createorder answered with page: the payment page of
// the order created, or of the live order a refresh with the same
// clientOrderId finds (SPEC.md). A refused create is answered by fail
// when given, else by the error handler's plain page.
func (h *CreateOrder) Hosted(page func(*fiber.Ctx, *schema.Order) error, fail func(*fiber.Ctx, HostedError) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		platform.WantHTMLErrors(c)
		p, err := ParseQueryParams(c.Context().QueryArgs())
		if err == nil {
			var o *schema.Order
			if o, _, err = h.create(c.UserContext(), p, h.requestIP(c), true); err == nil {
				return page(c, o)
			}
		}
		if fail == nil {
			return err
		}
		return fail(c, h.hostedError(c, p, err))
	}
}

// HostedError is a refused hosted create as the payer's page shows it.
type HostedError struct {
	Err  error
	Lang string // the request's lang, when it names one
	// Back is where the payer may go back to: the origin of the request's
	// return_url, only when the request is the merchant's own (its
	// signature verifies), so that a forged link cannot make our page
	// send payers to another site.
	Back string
}

func (h *CreateOrder) hostedError(c *fiber.Ctx, p schema.Params, err error) HostedError {
	he := HostedError{Err: err}
	if p == nil {
		return he
	}
	he.Lang = p["lang"]
	ret := p["return_url"]
	if ret == "" {
		return he
	}
	if _, aerr := h.authenticate(c.UserContext(), schema.CreateForm, p); aerr != nil {
		return he
	}
	if u, perr := url.Parse(ret); perr == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		he.Back = u.Scheme + "://" + u.Host + "/"
	}
	return he
}

func (h *CreateOrder) requestIP(c *fiber.Ctx) netip.Addr { return h.clientIP.Of(c) }

func (h *CreateOrder) data(o *schema.Order, replay bool) createData {
	l := schema.OrderLinks(o, h.cfg.PublicURL)
	d := createData{
		PaymentID: o.ID, OrderID: o.ID, SelectURL: l.SelectURL, NextAction: o.NextAction,
		PayableAmount: o.PayableAmount, Status: int(o.Status), StatusString: o.Status.String(),
		PaidWithBalance: o.PaidWithBalance, Idempotent: replay, Amount: o.Amount.String(),
		Currency: o.Currency, PaymentMethod: string(o.Method), ClientOrderID: o.ClientOrderID,
		CreatedAt: schema.WireTime(o.CreatedAt),
	}
	if l.RedirectURL != "" {
		d.RedirectURL = &l.RedirectURL
	}
	if l.QRImageURL != "" {
		d.QRImageURL = &l.QRImageURL
	}
	return d
}

// create runs DESIGN.md's check order, then stores the order. It returns the
// order as the merchant should see it, and whether it is a replay. hosted
// is the GET flow, whose signed URL sits in the payer's browser.
func (h *CreateOrder) create(ctx context.Context, p schema.Params, ip netip.Addr, hosted bool) (*schema.Order, bool, error) {
	if err := checkRequired(p); err != nil {
		return nil, false, err
	}
	acct, err := h.authenticate(ctx, schema.CreateForm, p)
	if err != nil {
		return nil, false, err
	}
	// Limited once the merchant is proven: an unsigned flood naming an appid
	// must not spend that merchant's limit.
	if err := h.limiter.Allow(ctx, "create", acct.AppID, merchant.Limit(acct.CreateLimit, h.cfg.CreateLimit)); err != nil {
		return nil, false, err
	}
	if !platform.SameIP(p["clientip"], ip) {
		return nil, false, platform.Errorf(platform.KindClientIPMismatch, "Request IP does not match clientip")
	}
	req, err := parseCreate(p)
	if err != nil {
		return nil, false, err
	}
	if hosted && req.method == schema.MethodBalance && req.clientOrderID == "" {
		// Without one a reload of the URL could not be told from a new order.
		return nil, false, invalid("clientOrderId is required with paymentMethod=balance on GET /api/createorder: " +
			"it makes a reloaded or replayed URL pay once")
	}
	prov, ok := h.providers.For(req.method, acct.Sandbox)
	if !ok && req.method != schema.MethodBalance {
		return nil, false, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available for this merchant", req.method)
	}
	if err := h.checkLimits(acct, req.method, req.amount, req.currency); err != nil {
		return nil, false, err
	}
	o := h.newOrder(acct, req)
	if req.method == schema.MethodBalance {
		return h.payFromBalance(ctx, o)
	}
	return h.place(ctx, o, prov)
}

// authenticate is the form, appid, enabled and signature steps.
func (h *CreateOrder) authenticate(ctx context.Context, form schema.SignedForm, p schema.Params) (*merchant.Account, error) {
	return merchant.AuthenticateForm(ctx, h.accounts, form, p, h.now())
}

func (h *CreateOrder) newOrder(acct *merchant.Account, r *createRequest) *schema.Order {
	now := h.now().UTC()
	shard := schema.RandomShard()
	switch {
	case r.method == schema.MethodBalance:
		shard = schema.HomeShard(acct.AppID)
	case r.clientOrderID != "":
		shard = schema.ShardFor(acct.AppID, r.clientOrderID)
	}
	notify := r.notifyURL
	if notify == "" {
		notify = acct.Callback
	}
	allowed := ""
	for i, m := range r.allowed {
		if i > 0 {
			allowed += ","
		}
		allowed += string(m)
	}
	return &schema.Order{
		ID: schema.NewOrderID(now, shard), AppID: acct.AppID, Sandbox: acct.Sandbox,
		ClientOrderID: r.clientOrderID, Amount: r.amount, Currency: r.currency, Method: r.method,
		Status: schema.StatusPending, Description: r.description, CustomerName: r.customerName,
		CustomerEmail: r.customerEmail, CustomerPhone: r.customerPhone, NotifyURL: notify,
		ReturnURL: r.returnURL, Lang: r.lang, AllowedMethods: allowed, FiatpspSystemID: r.fiatpspSystemID,
		ClientIP: r.clientIP, CreatedAt: now, UpdatedAt: now, Version: 1,
	}
}
