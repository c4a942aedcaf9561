package frame

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
)

// UI is one console's frame.
type UI struct {
	cfg      Config
	auth     Auth
	deps     Deps
	catalogs map[string]*Catalog
	tmpl     *zoned
	assets   *assets
	pages    *prometheus.CounterVec
	log      *slog.Logger
}

// New builds the frame; templates, messages and assets are checked here, so
// a broken one stops the process before it serves.
func New(cfg Config, d Deps, reg prometheus.Registerer, log *slog.Logger) (*UI, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if d.Auth == nil || d.ClientIP == nil || d.Templates == nil || log == nil {
		return nil, fmt.Errorf("frame: auth, client IP, templates and logger are required")
	}
	for _, x := range d.Extensions {
		if err := x.Extend(&d); err != nil {
			return nil, err
		}
	}
	cats, err := loadCatalogs(d.Locales)
	if err != nil {
		return nil, err
	}
	for lang, c := range cats {
		c.methods = d.MethodNames[lang]
	}
	a, err := loadAssets(cfg.Base, d.Assets)
	if err != nil {
		return nil, err
	}
	tmpl, err := parseTemplates(d.Templates, d.Funcs, cats["en"])
	if err != nil {
		return nil, err
	}
	for _, n := range d.Nav {
		if !cats["en"].Has(n.Label) {
			return nil, fmt.Errorf("frame: nav item %s: no message %s", n.Path, n.Label)
		}
	}
	pages := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_console_pages_total", Help: "Console pages rendered, by console and page.",
	}, []string{"console", "page"})
	// Both consoles may run in one process on one registry: the second
	// shares the first's counter (its label tells them apart).
	if err := reg.Register(pages); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return nil, fmt.Errorf("register console page metrics: %w", err)
		}
		pages = are.ExistingCollector.(*prometheus.CounterVec)
	}
	return &UI{cfg: cfg, auth: d.Auth, deps: d, catalogs: cats, tmpl: &zoned{pristine: tmpl, byZone: map[string]map[string]*template.Template{}}, assets: a, pages: pages, log: log}, nil
}

// Config is the frame's configuration (Base, Realm, ...).
func (u *UI) Config() Config { return u.cfg }

// Register mounts the frame's own routes: assets, language switch, login,
// setup and logout. It returns the router of the logged-in pages: every
// route on it has a live session of the realm and, for anything but GET
// and HEAD, a right CSRF token; the console adds its pages there, each
// behind Require.
func (u *UI) Register(app fiber.Router) fiber.Router {
	b := u.cfg.Base
	app.Get(b+"/assets/:name", u.assets.serve)
	app.Get(b+"/lang/:lang", u.switchLang)
	in := entry{ui: u}
	app.Get(b+"/login", in.loginPage)
	app.Post(b+"/login", u.bounded, in.loginPost)
	app.Get(b+"/setup/:token", in.setupPage)
	app.Post(b+"/setup/:token", u.bounded, in.setupPost)
	g := app.Group(b, u.scoped(u.bounded), u.scoped(u.Authenticated()))
	g.Post("/logout", in.logout)
	g.Get("/zone", u.zonePage)
	g.Post("/zone", u.zonePost)
	for _, x := range u.deps.Extensions {
		x.Register(g, u)
	}
	return g
}

// Mine reports whether the request's path is the console's: fiber's
// group middleware matches a bare prefix, so "/consoles" would otherwise
// pass through the console's session check.
func (u *UI) Mine(c *fiber.Ctx) bool {
	p := c.Path()
	return p == u.cfg.Base || strings.HasPrefix(p, u.cfg.Base+"/")
}

// scoped runs h on the console's own paths only.
func (u *UI) scoped(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !u.Mine(c) {
			return c.Next()
		}
		return h(c)
	}
}

// bounded refuses an oversized form before anything parses it. The
// declared length is read, not the body: a multipart body fasthttp parsed
// as it arrived would be put back together in memory by c.Body().
func (u *UI) bounded(c *fiber.Ctx) error {
	limit := u.cfg.MaxFormBytes
	if n, ok := u.cfg.Uploads[c.Path()]; ok && c.Method() == fiber.MethodPost {
		limit = n
	}
	size := c.Request().Header.ContentLength()
	if size < 0 { // chunked: the body is in memory already
		size = len(c.Body())
	}
	if size > limit {
		return u.Fail(c, fiber.NewError(fiber.StatusRequestEntityTooLarge, "form too large"))
	}
	return c.Next()
}

// View is what every template gets.
type View struct {
	L       *Catalog
	Nonce   string
	CSRF    string // the session's form token, or the login form's
	Base    string
	Brand   string
	Title   string
	Path    string // the request's path, for the language switch
	Nav     []NavLink
	Session *access.Session
	Langs   []string
	Assets  map[string]string
	Scripts []string // logical names of the console's scripts this page loads
	Flash   string   // a notice after an action
	// Locks is how many accounts of the viewer's team (the operators, for
	// an admin) have a locked second factor; shown to who may unlock them.
	Locks     int64
	LocksPath string // where they are unlocked; "" for the CLI
	Problem   string // what went wrong, shown in an alert
	// Sandbox draws the sandbox bar across the page: the merchant (the
	// viewer's, or the one an operator looks at) moves no real money.
	Sandbox bool
	Status  int
	Data    any
	// Zone is the viewer's time zone: every time on the page is shown in
	// it (When).
	Zone *time.Location
}

// NavLink is a NavItem the person may follow.
type NavLink struct {
	URL, Label string
	Current    bool
}

// Asset is the served path of logical asset name ("console.js").
func (v *View) Asset(name string) string { return v.Assets[name] }

// Can reports whether the viewer may do p: templates show a form only when
// its action would be allowed (the handler checks again).
func (v *View) Can(p string) bool {
	return v.Session != nil && access.Can(v.Session, v.Session.Realm, access.Permission(p))
}

// View starts a page's data: language, nonce, session, navigation.
func (u *UI) View(c *fiber.Ctx, title string) *View {
	s := SessionOf(c)
	cat := u.catalog(c)
	v := &View{L: cat, Nonce: newNonce(), Base: u.cfg.Base, Brand: cat.T(u.cfg.Brand), Title: cat.T(title),
		Path: strings.Clone(c.Path()), Session: s, Langs: Langs, Assets: u.assets.paths, Status: fiber.StatusOK,
		Zone: zoneOf(s)}
	if s != nil {
		v.CSRF = s.CSRF
		for _, n := range u.deps.Nav {
			if n.Perm != "" && !access.Can(s, u.cfg.Realm, n.Perm) {
				continue
			}
			url := u.cfg.Base + n.Path
			v.Nav = append(v.Nav, NavLink{URL: url, Label: cat.T(n.Label),
				Current: v.Path == url || (n.Path != "/" && n.Path != "" && strings.HasPrefix(v.Path, url+"/"))})
		}
		v.Locks = u.locks(c, s)
		v.Sandbox = u.sandbox(c, s)
		if u.deps.LocksPath != "" {
			v.LocksPath = u.cfg.Base + u.deps.LocksPath
		}
	}
	return v
}

// locks is the count of locked second factors the viewer may unlock: a
// merchant's owner sees its merchant's, an admin the operators'. It is a
// notice, not a gate: when Redis cannot say, the page shows none.
func (u *UI) locks(c *fiber.Ctx, s *access.Session) int64 {
	perm := access.PermUsersManage
	if u.cfg.Realm == access.RealmOperator {
		perm = access.PermOperatorsManage
	}
	if !access.Can(s, u.cfg.Realm, perm) {
		return 0
	}
	n, err := u.auth.SecondFactorLocks(c.UserContext(), u.cfg.Realm, s.AppID)
	if err != nil {
		u.log.Warn("console: count locked second factors", "err", err)
		return 0
	}
	return n
}

// sandbox is whether the session's merchant is a sandbox one. Like the
// locks, a notice: when Redis cannot say, the page goes without the bar.
func (u *UI) sandbox(c *fiber.Ctx, s *access.Session) bool {
	if u.deps.Sandbox == nil || s.AppID == "" {
		return false
	}
	sb, err := u.deps.Sandbox(c.UserContext(), s)
	if err != nil {
		u.log.Warn("console: read the merchant's mode", "err", err)
		return false
	}
	return sb
}

// Render writes page name (a console template's file name without .html,
// or one of the frame's) with the security headers.
func (u *UI) Render(c *fiber.Ctx, name string, v *View) error {
	t, ok, err := u.tmpl.page(name, v.Zone)
	if err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	if !ok {
		return fmt.Errorf("frame: no page %s", name)
	}
	res := c.Response()
	res.ResetBody()
	if err := t.ExecuteTemplate(res.BodyWriter(), "layout", v); err != nil {
		res.ResetBody()
		return fmt.Errorf("render %s: %w", name, err)
	}
	u.headers(c, v.Nonce)
	c.Status(v.Status).Type("html", "utf-8")
	u.pages.WithLabelValues(strings.TrimPrefix(u.cfg.Base, "/"), name).Inc()
	return nil
}

// Redirect sends the browser on after a form (303: the next page is a GET).
func (u *UI) Redirect(c *fiber.Ctx, to string) error {
	u.headers(c, newNonce())
	return c.Redirect(to, fiber.StatusSeeOther)
}

// headers: nothing runs but our scripts carrying this response's nonce,
// nothing loads from another host, forms post only to us, no page of ours
// in a frame (clickjacking), no address leaks through Referer, nothing is
// cached (pages show money and people).
func (u *UI) headers(c *fiber.Ctx, nonce string) {
	c.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'self'; "+
		"img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	c.Set("X-Frame-Options", "DENY")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
	c.Set(fiber.HeaderCacheControl, "no-store")
	if u.secure(c) {
		c.Set("Strict-Transport-Security", "max-age=31536000")
	}
}

func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return base64.RawURLEncoding.EncodeToString(b)
}

// catalog is the language the person chose (a cookie the footer's switch
// sets), English otherwise.
func (u *UI) catalog(c *fiber.Ctx) *Catalog {
	if cat, ok := u.catalogs[c.Cookies(u.cfg.CookieName+"_lang")]; ok {
		return cat
	}
	return u.catalogs["en"]
}

// switchLang sets the language cookie and goes back to the page it came
// from, which must be one of this console's.
func (u *UI) switchLang(c *fiber.Ctx) error {
	lang := c.Params("lang")
	if !slices.Contains(Langs, lang) {
		return u.Fail(c, fiber.ErrNotFound)
	}
	c.Cookie(&fiber.Cookie{Name: u.cfg.CookieName + "_lang", Value: lang, Path: u.cfg.Base, MaxAge: 365 * 24 * 3600,
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: u.secure(c)})
	return u.Redirect(c, u.localNext(c.Query("next")))
}

// localNext is next when it is a path of this console, else its home: a
// link cannot send the person to another site.
func (u *UI) localNext(next string) string {
	b := u.cfg.Base
	if (next == b || strings.HasPrefix(next, b+"/")) && !strings.Contains(next, "//") && !strings.Contains(next, `\`) &&
		!strings.HasPrefix(next, b+"/login") && !strings.HasPrefix(next, b+"/setup") && !strings.HasPrefix(next, b+"/lang") {
		return next
	}
	return b + "/"
}

func (u *UI) secure(c *fiber.Ctx) bool { return u.cfg.Secure || c.Protocol() == "https" }
