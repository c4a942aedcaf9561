package checkout

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"slices"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Pages serves every payer page.
type Pages struct {
	*screen
	orders OrderPorts
	limit  fiber.Handler
	keys   interface {
		Key(ctx context.Context, name string) ([]byte, error)
	}
	merchants Merchants
	returns   ReturnLinks
	// The steps an order's page may hand over to, each a type of its own.
	methods *methodSteps // method, fiatpsp and cryptopsp choices
	usdt    *usdtStep    // USDT direct pay and review
	balance *loginStep   // merchant balance login and pay
}

// Deps are the pages' collaborators. Limit is the per-client-IP limit of the
// payer pages (the status address included).
type Deps struct {
	Orders   OrderPorts
	Payers   Payers
	ClientIP *platform.ClientIP
	Limit    fiber.Handler
	// Keys gives the CSRF key every node shares when the configuration
	// names none.
	Keys KeyStore
	// Merchants names the merchant a payer pays (a per-process cache:
	// the pages read it on every render).
	Merchants Merchants
	// Returns, when set, gives the return link of an order made through
	// another door (the epay door's signed parameters); nil: SPEC.md's.
	Returns ReturnLinks
}

// New builds the pages; templates and catalogues are checked here, so a
// broken one stops the process before it serves.
func New(cfg Config, d Deps, reg prometheus.Registerer, log *slog.Logger) (*Pages, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !d.Orders.complete() || d.Payers == nil || d.ClientIP == nil || d.Merchants == nil {
		return nil, fmt.Errorf("checkout: orders, payers, merchants and client IP are required")
	}
	if len(cfg.CSRFKey) == 0 && d.Keys == nil {
		return nil, fmt.Errorf("checkout: no CSRF key and no shared key store")
	}
	if d.Limit == nil {
		d.Limit = func(c *fiber.Ctx) error { return c.Next() }
	}
	cats, err := catalogs()
	if err != nil {
		return nil, err
	}
	withNames(cats, cfg.MethodNames)
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	if err := checkMessages(cats["en"]); err != nil { // every language has the English ids
		return nil, err
	}
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	sc := &screen{cfg: cfg, catalogs: cats, tmpl: tmpl, assets: a, m: m, log: log}
	p := &Pages{screen: sc, orders: d.Orders, limit: d.Limit, keys: d.Keys, merchants: d.Merchants, returns: d.Returns}
	p.methods = &methodSteps{screen: sc, orders: d.Orders}
	p.usdt = &usdtStep{screen: sc, orders: d.Orders, orderPage: p.orderPage}
	p.balance = &loginStep{screen: sc, orders: d.Orders, payers: d.Payers, ips: d.ClientIP, forOrder: p.forOrder}
	return p, nil
}

// Prepare loads the shared CSRF key when the configuration named none; it
// runs before the process serves.
func (p *Pages) Prepare(ctx context.Context) error {
	if len(p.cfg.CSRFKey) > 0 {
		return nil
	}
	k, err := p.keys.Key(ctx, "csrf")
	if err != nil {
		return fmt.Errorf("checkout: %w", err)
	}
	p.cfg.CSRFKey = k
	return nil
}

// Register mounts the pages, each also under /<lang>/. The two confirm
// endpoints of the providers' second steps are mounted in front of the
// command side's JSON ones: a form from our page (it carries a CSRF token)
// is answered here with a page, anything else passes on.
//
// The per-IP limit is on each route, not on the groups: a group's handlers
// are middleware on its prefix, and "" and "/:lang" are prefixes of every
// path, so the merchant API registered after the pages would pay the
// payers' per-IP limit too, and a page under /<lang>/ would pay it twice.
func (p *Pages) Register(r fiber.Router) {
	r.Get("/checkout/assets/:name", p.assets.serve)
	// The limit goes on each route, not on a group: a group's handler on
	// the "" prefix would be middleware for every route of the app.
	lim := p.limit
	for _, prefix := range []string{"", "/:lang"} {
		r.Get(prefix+"/payment/:paymentId/status", lim, p.status)
		r.Get(prefix+"/payment/:paymentId", lim, p.page(p.payment))
		r.Post(prefix+"/payment/:paymentId", lim, p.page(p.paymentPost))
		r.Get(prefix+"/payment/:paymentId/usdt-direct", lim, p.page(p.usdt.usdtPage))
		r.Post(prefix+"/payment/:paymentId/usdt-direct", lim, p.page(p.usdt.usdtPost))
		r.Get(prefix+"/payment/:paymentId/usdt-qr.png", lim, p.usdt.usdtQR)
		r.Get(prefix+"/merchant/login", lim, p.page(p.balance.loginPage))
		r.Post(prefix+"/merchant/login", lim, p.page(p.balance.loginPost))
		r.Post(prefix+"/merchant/pay", lim, p.page(p.balance.payPost))
		r.Post(prefix+"/merchant/logout", lim, p.page(p.balance.logoutPost))
	}
	r.Post("/api/fiatpsp/confirm", p.limit, p.methods.fromPage(p.methods.fiatpspConfirm))
	r.Post("/api/cryptopsp/confirm", p.limit, p.methods.fromPage(p.methods.cryptopspConfirm))
}

// Render answers GET /api/createorder with the payment page of the order
// the request created or found.
func (p *Pages) Render(c *fiber.Ctx, o *schema.Order) error {
	return p.page(func(c *fiber.Ctx, v *view) error { return p.orderPage(c, v, o) })(c)
}

// view is what every template gets: the page's language, its nonce and
// token, and the page's own data.
type view struct {
	L        *Catalog
	Nonce    string
	CSRF     string
	Prefix   string // "" or "/<lang>", kept on every link and form
	Assets   assetPaths
	Title    string
	Sandbox  bool
	Order    *orderView
	Poll     *pollView
	Data     any
	ErrorMsg string
	Status   int
}

func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return base64.RawURLEncoding.EncodeToString(b)
}

// page wraps a page handler: language, nonce, security headers, and an
// error shown as a page in the payer's language.
func (p *screen) page(h func(*fiber.Ctx, *view) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		v, err := p.newView(c)
		if err != nil {
			return p.fail(c, &view{L: p.catalogs["en"], Nonce: newNonce(), Assets: p.assets.paths}, err)
		}
		if len(c.Body()) > p.cfg.MaxFormBytes {
			return p.fail(c, v, platform.Errorf(platform.KindTooLarge, "the form is larger than %d bytes", p.cfg.MaxFormBytes))
		}
		if err := h(c, v); err != nil {
			return p.fail(c, v, err)
		}
		return nil
	}
}

// newView reads the path's language: an unknown one is not a page of ours.
func (p *screen) newView(c *fiber.Ctx) (*view, error) {
	v := &view{L: p.catalogs["en"], Nonce: newNonce(), Assets: p.assets.paths}
	if lang := c.Params("lang"); lang != "" {
		if !slices.Contains(schema.Langs, lang) {
			return nil, platform.Errorf(platform.KindRouteNotFound, "no such page")
		}
		v.L, v.Prefix = p.catalogs[lang], "/"+lang
	}
	return v, nil
}

// forOrder takes the order's language when the path named none, and names
// the merchant the payer pays.
func (p *Pages) forOrder(c *fiber.Ctx, v *view, o *schema.Order) error {
	if c.Params("lang") == "" {
		if cat, ok := p.catalogs[o.Lang]; ok {
			v.L = cat
		}
	}
	v.Sandbox = o.Sandbox
	v.Order = p.orderView(v, o)
	if l := p.returnLink(c.UserContext(), o); l != "" {
		v.Order.ReturnURL = l
	}
	acct, err := p.merchants.Lookup(c.UserContext(), o.AppID)
	if err != nil {
		return fmt.Errorf("merchant of order %s: %w", o.ID, err)
	}
	v.Order.Merchant = acct.Name
	return nil
}

// render writes template name with the security headers every page has.
// The page goes straight into the response's body, a buffer fasthttp
// reuses, instead of one grown and copied per page; a template that fails
// half-way leaves nothing of itself for the error page.
func (p *screen) render(c *fiber.Ctx, status int, name string, v *view) error {
	res := c.Response()
	res.ResetBody()
	if err := p.tmpl[name].ExecuteTemplate(res.BodyWriter(), "layout", v); err != nil {
		res.ResetBody()
		return fmt.Errorf("render %s: %w", name, err)
	}
	p.headers(c, v.Nonce)
	c.Status(status).Type("html", "utf-8")
	p.m.pages.WithLabelValues(name).Inc()
	return nil
}

// headers: nothing runs but our own script with this response's nonce,
// nothing loads from another host, forms post only to us, no framing, and
// the payment id does not leak to other hosts through Referer.
func (p *screen) headers(c *fiber.Ctx, nonce string) {
	c.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'self'; "+
		"img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("X-Frame-Options", "DENY")
	c.Set(fiber.HeaderCacheControl, "no-store")
}

// redirect sends the browser on after a form (303: the next page is a GET).
func (p *screen) redirect(c *fiber.Ctx, to string) error {
	p.headers(c, newNonce())
	return c.Redirect(to, fiber.StatusSeeOther)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
