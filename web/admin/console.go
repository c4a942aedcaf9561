package admin

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	ledgerq "github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
)

//go:embed templates/*.html
var templatesFS embed.FS

//go:embed locales/*.json
var localesFS embed.FS

//go:embed assets/*.css
var assetsFS embed.FS

// Deps are the use cases the pages call.
type Deps struct {
	Accounts    *access.Accounts
	ClientIP    *platform.ClientIP
	Merchants   *operator.Merchants
	Store       *merchant.Store // reads: list, detail, balances
	USDTReviews *operator.USDTReviews
	Exceptions  *operator.Exceptions
	Settings    *operator.Settings
	Fees        *operator.Fees
	Channels    *operator.Channels
	Health      *operator.Health
	// Payouts are the merchants' payouts awaiting review or an end; nil:
	// no Payouts page.
	Payouts *operator.Payouts
	// Recon imports providers' statements and reads each channel's
	// receivable; nil: no Reconciliation page.
	Recon *operator.Reconciliation
	// Money is a merchant's terms, journal and adjustments.
	Money *operator.Money
	// EpayTypes is the epay door's mapping of type words to methods; nil:
	// no such page.
	EpayTypes *operator.EpayTypes
	// Audit searches the audit log in ClickHouse; nil in a process that
	// has no ClickHouse (the page says so).
	Audit *audit.Searcher
	// View reads a merchant's console for the read-only view; nil in a
	// process without ClickHouse (the view says so).
	View *orderview.Reader
	// Income reads the platform's fee income from the journal's copy in
	// ClickHouse; nil in a process without ClickHouse (the page says so).
	Income *ledgerq.Statements
	// Orders counts every merchant's orders by method for the Providers
	// page; nil in a process without ClickHouse (the page shows the
	// providers' health only).
	Orders MethodOrders
	// Live are the providers configured live, by method (what the
	// merchant detail shows as its methods' providers).
	Live []string
}

// Console is the operator console's pages. The exceptions pages and the
// read-only view of a merchant's console are types of their own
// (exceptionPages, consoleView), holding only what they use.
type Console struct {
	screen
	d   Deps
	now func() time.Time
}

// screen is what every page family draws with: the frame, and the render
// and redirect steps the operator console's pages share.
type screen struct{ ui *frame.UI }

// Config: whether the deployment serves the console over https (the
// cookies' Secure flag), and the clock the pages measure ages by.
type Config struct {
	Secure bool
	Now    func() time.Time // default time.Now
	// MethodNames are the payers' names of the methods (frame.Deps).
	MethodNames map[string]map[string]string
}

// Defaults is the operator console's settings unless told otherwise.
func Defaults() Config { return Config{Now: time.Now} }

// withDefaults fills the unset clock from Defaults.
func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = Defaults().Now
	}
	return c
}

// Validate refuses settings the pages cannot work with; it changes nothing.
func (c Config) Validate() error {
	if c.Now == nil {
		return errors.New("operator console: a clock is required")
	}
	return nil
}

// New builds the console on the frame; a template or message missing in
// any language stops the process here, before it serves.
func New(cfg Config, d Deps, reg prometheus.Registerer, log *slog.Logger) (*Console, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tmpl, err := fs.Sub(templatesFS, "templates")
	if err != nil {
		return nil, err
	}
	locales, err := fs.Sub(localesFS, "locales")
	if err != nil {
		return nil, err
	}
	assets, err := fs.Sub(assetsFS, "assets")
	if err != nil {
		return nil, err
	}
	ui, err := frame.New(frame.Config{Base: Prefix, Realm: access.RealmOperator, CookieName: "gw_admin", Brand: "admin_brand", Secure: cfg.Secure,
		Uploads: map[string]int{Prefix + reconPath: statementUpload, Prefix + refsPath: refsUpload}},
		frame.Deps{Auth: d.Accounts, ClientIP: d.ClientIP, Templates: tmpl, Locales: locales, Assets: assets, Nav: nav, Funcs: funcs,
			MethodNames: cfg.MethodNames}, reg, log)
	if err != nil {
		return nil, fmt.Errorf("operator console: %w", err)
	}
	return &Console{screen: screen{ui: ui}, d: d, now: cfg.Now}, nil
}

var nav = []frame.NavItem{
	{Path: "/exceptions", Label: "nav_exceptions", Perm: access.PermExceptionsRead},
	{Path: "/usdt", Label: "nav_usdt", Perm: access.PermUSDTRead},
	{Path: "/merchants", Label: "nav_merchants", Perm: access.PermMerchantsRead},
	{Path: "/adjustments", Label: "nav_adjustments", Perm: access.PermMerchantsRead},
	{Path: "/settings", Label: "nav_settings", Perm: access.PermSettingsRead},
	{Path: "/fees", Label: "nav_fees", Perm: access.PermSettingsRead},
	{Path: epayTypesPath, Label: "nav_epay_types", Perm: access.PermSettingsRead},
	{Path: "/channels", Label: "nav_channels", Perm: access.PermSettingsRead},
	{Path: "/providers", Label: "nav_providers", Perm: access.PermSettingsRead},
	{Path: "/audit", Label: "nav_audit", Perm: access.PermOpAuditRead},
	{Path: "/income", Label: "nav_income", Perm: access.PermFeeIncomeRead},
	{Path: "/payouts", Label: "nav_payouts", Perm: access.PermOpPayoutsRead},
	{Path: reconPath, Label: "nav_recon", Perm: access.PermOpReconRead},
}

var funcs = template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", f*100) },
	"ms":   func(s float64) string { return fmt.Sprintf("%.0f ms", s*1000) },
	"path": url.PathEscape,
	"list": func(s ...string) []string { return s },
	// withPage hands a journal page's tables the view they translate with.
	"withPage":     func(v any, p operator.JournalPage) map[string]any { return map[string]any{"V": v, "P": p} },
	"orderChannel": orderChannel,
	// channelForm hands a channel's edit forms the page's view.
	"channelForm": func(p any, c channelCard) map[string]any { return map[string]any{"P": p, "C": c} },
	// payoutRow hands a payout's cells the page's view.
	"payoutRow": func(v any, p payout.Payout) map[string]any { return map[string]any{"V": v, "P": p} },
	"has": func(list []string, s string) bool {
		return strings.Contains(","+strings.Join(list, ",")+",", ","+s+",")
	},
}

// register mounts the frame and the pages; every page is behind Require
// and its use case checks the role again.
func (c *Console) register(app *fiber.App) {
	g := c.ui.Register(app)
	r := c.ui.Require
	g.Get("/", func(ctx *fiber.Ctx) error { return c.ui.Redirect(ctx, Prefix+c.home(ctx)) })
	ex := exceptionPages{screen: c.screen, queue: c.d.Exceptions}
	g.Get("/exceptions", r(access.PermExceptionsRead), ex.exceptions)
	g.Post("/exceptions/:kind/:id/handle", r(access.PermExceptionsHandle), ex.handleException)
	g.Post("/exceptions/:id/resend", r(access.PermOpWebhooksResend), ex.resendException)
	g.Post("/exceptions/:id/refund", r(access.PermOpRefund), ex.recordRefund)
	g.Post("/exceptions/:id/provider-refund", r(access.PermOpRefund), ex.providerRefund)
	g.Get("/usdt", r(access.PermUSDTRead), c.desk)
	g.Get("/usdt/:id", r(access.PermUSDTRead), c.review)
	g.Post("/usdt/:id/approve", r(access.PermUSDTReview), c.decide("approve"))
	g.Post("/usdt/:id/reject", r(access.PermUSDTReview), c.decide("reject"))
	g.Get("/merchants", r(access.PermMerchantsRead), c.merchants)
	g.Post("/merchants", r(access.PermMerchantsWrite), c.createMerchant)
	g.Get("/merchants/:appid", r(access.PermMerchantsRead), c.merchant)
	g.Post("/merchants/:appid/state", r(access.PermMerchantsWrite), c.merchantState)
	g.Post("/merchants/:appid/credit", r(access.PermMerchantsWrite), c.credit)
	g.Post("/merchants/:appid/limits", r(access.PermMerchantsWrite), c.limits)
	if c.d.Money != nil {
		moneyPages{screen: c.screen, money: c.d.Money, store: c.d.Store}.register(g)
	}
	consoleView{screen: c.screen, view: c.d.View, store: c.d.Store, merchants: c.d.Merchants}.register(g)
	g.Get("/settings", r(access.PermSettingsRead), c.settings)
	g.Post("/settings/fx", r(access.PermFXWrite), c.setRate)
	g.Post("/settings/networks", r(access.PermNetworksWrite), c.setNetwork)
	g.Get("/fees", r(access.PermSettingsRead), c.feesPage)
	g.Post("/fees", r(access.PermFeesWrite), c.setFee)
	g.Post("/fees/clear", r(access.PermFeesWrite), c.clearFee)
	g.Get("/channels", r(access.PermSettingsRead), channelDesk{c}.channelsPage)
	g.Post("/channels/set", r(access.PermChannelsWrite), channelDesk{c}.setChannel)
	g.Post("/channels/state", r(access.PermChannelsWrite), channelDesk{c}.channelState)
	g.Post("/channels/breaker", r(access.PermChannelsWrite), channelDesk{c}.channelBreaker)
	g.Post("/channels/mode", r(access.PermChannelsWrite), channelDesk{c}.channelMode)
	g.Post("/channels/keywords", r(access.PermChannelsWrite), channelDesk{c}.channelKeywords)
	g.Post("/channels/pin", r(access.PermChannelsWrite), channelDesk{c}.channelPin)
	g.Get("/providers", r(access.PermSettingsRead), c.providers)
	g.Get("/audit", r(access.PermOpAuditRead), c.auditLog)
	g.Get("/audit.csv", r(access.PermOpAuditRead), c.auditCSV)
	g.Get("/income", r(access.PermFeeIncomeRead), c.income)
	if c.d.Payouts != nil {
		payoutPages{screen: c.screen, payouts: c.d.Payouts}.register(g)
	}
	if c.d.Recon != nil {
		reconPages{screen: c.screen, recon: c.d.Recon}.register(g)
	}
	if c.d.EpayTypes != nil {
		epayTypePages{screen: c.screen, types: c.d.EpayTypes}.register(g)
	}
}

// home is the first page a role may read.
func (c *Console) home(ctx *fiber.Ctx) string {
	s := frame.SessionOf(ctx)
	for _, n := range nav {
		if access.Can(s, access.RealmOperator, n.Perm) {
			return n.Path
		}
	}
	return "/login"
}

// page renders name with data, a notice from the query (after a redirect)
// and the problem of a refused form.
func (c screen) page(ctx *fiber.Ctx, name, title string, data any) error {
	v := c.ui.View(ctx, title)
	v.Data = data
	switch d := data.(type) { // the pages of a sandbox merchant carry its bar
	case *viewData:
		v.Sandbox = d.A.Sandbox
	case merchantData:
		v.Sandbox = d.A.Sandbox
	}
	if f := ctx.Query("done"); f != "" {
		v.Flash = v.L.T("done_" + flashWord(f))
	}
	return c.ui.Render(ctx, name, v)
}

// flashWord keeps a notice id to the words the pages send.
func flashWord(s string) string {
	switch s {
	case "handled", "resent", "approved", "rejected", "created", "disabled", "enabled", "credited", "limits", "rate", "network", "refund",
		"fee_set", "fee_cleared", "channel", "terms", "adjusted", "requested", "adj_approved", "adj_rejected",
		"payout_terms", "payout_approved", "payout_rejected", "payout_paid",
		"epay_types":
		return s
	}
	return "saved"
}

// after sends the browser back to to with a notice, or shows err.
func (c screen) after(ctx *fiber.Ctx, err error, to, done string) error {
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	sep := "?"
	if strings.Contains(to, "?") {
		sep = "&"
	}
	return c.ui.Redirect(ctx, Prefix+to+sep+"done="+done)
}

// form is a posted field, trimmed and copied out of fasthttp's buffer.
func form(ctx *fiber.Ctx, name string) string {
	return strings.TrimSpace(strings.Clone(ctx.FormValue(name)))
}

// text is a posted free-text field (a reason, a note, a name) under the
// shared rule (audit.Text): trimmed, valid UTF-8 without control
// characters, at most limit characters; anything else is a 400 before the
// form's use case runs.
func text(ctx *fiber.Ctx, name string, limit int) (string, error) {
	return audit.Text(name, strings.Clone(ctx.FormValue(name)), limit)
}

// param is a route parameter, copied.
func param(ctx *fiber.Ctx, name string) string { return strings.Clone(ctx.Params(name)) }

// query is a query parameter, copied.
func query(ctx *fiber.Ctx, name string) string {
	return strings.TrimSpace(strings.Clone(ctx.Query(name)))
}
