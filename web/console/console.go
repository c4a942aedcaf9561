package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
)

var (
	//go:embed templates/*.html
	templateFiles embed.FS
	//go:embed locales/*.json
	localeFiles embed.FS
	//go:embed assets/*
	assetFiles embed.FS
)

// Base is where the console lives on the public listener.
const Base = "/console"

// CookieName is the console's session cookie (the payer's balance login
// at /merchant/login has its own).
const CookieName = "gw_console"

// Config is the console's own settings; sessions and login limits are
// access.Config's.
type Config struct {
	Secure   bool // the public URL is https: cookies get Secure
	PageSize int  // orders per page (default 25)
	// ExportRange is the range "export these" covers when the filter
	// names no dates (default 30 days back from now).
	ExportRange time.Duration
	Now         func() time.Time
	// MethodNames are the payers' names of the methods (frame.Deps).
	MethodNames map[string]map[string]string
}

// Defaults is the console's settings unless told otherwise.
func Defaults() Config {
	return Config{PageSize: 25, ExportRange: 30 * 24 * time.Hour, Now: time.Now}
}

// withDefaults fills the unset fields (zero or below) from Defaults.
func (c Config) withDefaults() Config {
	d := Defaults()
	if c.PageSize <= 0 {
		c.PageSize = d.PageSize
	}
	if c.ExportRange <= 0 {
		c.ExportRange = d.ExportRange
	}
	if c.Now == nil {
		c.Now = d.Now
	}
	return c
}

// Validate refuses settings the pages cannot work with; it changes nothing.
func (c Config) Validate() error {
	if c.PageSize < 1 || c.ExportRange <= 0 || c.Now == nil {
		return fmt.Errorf("console: page size %d and export range %s must be positive, and a clock is required", c.PageSize, c.ExportRange)
	}
	return nil
}

// Deps are the console's collaborators.
type Deps struct {
	Auth     frame.Auth // *access.Accounts
	ClientIP *platform.ClientIP
	Reads    orderview.Reads
	Actions  Actions
	Audit    Auditor
	Live     *Hub           // nil: the orders page has no live feed
	Gate     orderview.Gate // nil: none
	// Extensions are other packages' pages in this console (package account's
	// Webhooks, Developers, Balance, Team & security).
	Extensions []frame.Extension
}

// Console is the merchant console.
type Console struct {
	cfg  Config
	ui   *frame.UI
	d    Deps
	log  *slog.Logger
	gate orderview.Gate
	read *orderview.Reader
}

// nav is the console's navigation; each page's permission decides who
// sees its link (the route checks again).
var nav = []frame.NavItem{
	{Path: "/", Label: "nav_overview", Perm: access.PermReportsRead},
	{Path: "/orders", Label: "nav_orders", Perm: access.PermOrdersRead},
	{Path: "/live", Label: "nav_live", Perm: access.PermOrdersRead},
}

// New builds the console; templates and messages are checked here.
func New(cfg Config, d Deps, reg prometheus.Registerer, log *slog.Logger) (*Console, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if d.Reads.Live == nil || d.Reads.Listing == nil || d.Reads.Reports == nil || d.Actions == nil || d.Audit == nil {
		return nil, errors.New("console: live orders, listing, reports, actions and audit log are required")
	}
	tmpl, _ := fs.Sub(templateFiles, "templates")
	locs, _ := fs.Sub(localeFiles, "locales")
	assets, _ := fs.Sub(assetFiles, "assets")
	ui, err := frame.New(frame.Config{Base: Base, Realm: access.RealmMerchant, CookieName: CookieName, Brand: "console_brand", Secure: cfg.Secure},
		frame.Deps{Auth: d.Auth, ClientIP: d.ClientIP, Nav: nav, Templates: tmpl, Locales: locs, Assets: assets, Funcs: funcs, Extensions: d.Extensions,
			MethodNames: cfg.MethodNames}, reg, log)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	gate := d.Gate
	if gate == nil {
		gate = noGate{}
	}
	read, err := orderview.New(orderview.Config{PageSize: cfg.PageSize, Now: cfg.Now}, d.Reads, gate)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	return &Console{cfg: cfg, ui: ui, d: d, log: log, gate: gate, read: read}, nil
}

type noGate struct{}

func (noGate) Acquire(context.Context, string) (func(), error) { return func() {}, nil }

// Register mounts the console on the public app.
func (c *Console) Register(app fiber.Router) {
	g := c.ui.Register(app)
	g.Get("/", c.ui.Require(access.PermReportsRead), c.overview)
	g.Get("/orders", c.ui.Require(access.PermOrdersRead), c.orders)
	g.Get("/orders/export", c.ui.Require(access.PermExport), c.export)
	g.Get("/orders/live", c.ui.Require(access.PermOrdersRead), c.live) // the stream, for scripts and the pages below
	g.Get("/live", c.ui.Require(access.PermOrdersRead), c.livePage)
	g.Get("/orders/:id", c.ui.Require(access.PermOrdersRead), c.order)
	g.Post("/orders/:id/refund", c.ui.Require(access.PermOrdersRefund), c.refund)
	g.Post("/orders/:id/cancel", c.ui.Require(access.PermOrdersCancel), c.cancel)
	g.Post("/orders/:id/resend", c.ui.Require(access.PermWebhooksResend), c.resend)
	g.Post("/orders/:id/sandbox", c.ui.Require(access.PermSandboxDrive), c.sandbox)
	g.Use(func(ctx *fiber.Ctx) error {
		if !c.ui.Mine(ctx) {
			return ctx.Next()
		}
		return c.ui.Fail(ctx, fiber.ErrNotFound)
	})
}

// entry is the audit entry of an export (a read the log keeps; the
// order actions' entries are their use cases'), built and checked before
// the export: a value it cannot keep is a 400 with nothing done.
func (c *Console) entry(ctx *fiber.Ctx, action, target string, details map[string]string) (audit.Entry, error) {
	s := frame.SessionOf(ctx)
	e := audit.Entry{At: c.cfg.Now().UTC(), ActorID: s.UserID, ActorEmail: s.Email, Realm: audit.RealmMerchant, Role: string(s.Role),
		Action: action, Target: target, AppID: s.AppID, Source: c.ui.Source(ctx), Details: details}
	return e, e.Check()
}

// audited appends e once the export's query has started; an entry that
// cannot be written (Redis down) fails the export before a byte is sent.
func (c *Console) audited(ctx *fiber.Ctx, e audit.Entry) error {
	if _, err := c.d.Audit.Append(ctx.UserContext(), e); err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}
