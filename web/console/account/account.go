// Package account is the merchant console's Webhooks, Developers, Balance
// and Team & security pages: thin handlers over the use cases of
// package selfservice, drawn in the console frame (web/frame). Pages is a
// frame.Extension, so a console takes the pages in with one line and they
// stay in files of their own:
//
//	frame.Deps{..., Extensions: []frame.Extension{account.New(svc, publicURL, log)}}
//
// Every route checks its permission twice, by the frame's Require and again
// in the use case; every form carries the session's CSRF token, which the
// frame checks before any handler runs.
package account

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/selfservice"
	"github.com/paygate/gateway/web/frame"
)

var (
	//go:embed templates/*.html
	templateFiles embed.FS
	//go:embed locales/*.json
	localeFiles embed.FS
)

// Pages are the four pages over the self-service use cases.
type Pages struct {
	svc       *selfservice.Services
	publicURL string // GATEWAY_PUBLIC_URL, no trailing slash
	now       func() time.Time
	log       *slog.Logger
}

// New wraps the use cases. publicURL (GATEWAY_PUBLIC_URL) is what the absolute
// links the pages show start with: never the request's Host or
// X-Forwarded-Host, which whoever sends the request chooses. log takes
// what fails after an answer has started (an export cut short).
func New(svc *selfservice.Services, publicURL string, log *slog.Logger) *Pages {
	return &Pages{svc: svc, publicURL: strings.TrimRight(publicURL, "/"), now: time.Now, log: log}
}

// Nav is the pages' navigation: each link shown to whom may read the page.
func Nav() []frame.NavItem {
	return []frame.NavItem{
		{Path: "/webhooks", Label: "desk_nav_webhooks", Perm: access.PermWebhooksRead},
		{Path: "/developers", Label: "desk_nav_developers", Perm: access.PermOrdersRead},
		{Path: "/balance", Label: "desk_nav_balance", Perm: access.PermBalanceRead},
		{Path: "/payouts", Label: "desk_nav_payouts", Perm: access.PermPayoutsRead},
		{Path: "/team", Label: "desk_nav_team", Perm: access.PermUsersRead},
	}
}

// Templates are the pages' templates (*.html at the root).
func Templates() fs.FS { sub, _ := fs.Sub(templateFiles, "templates"); return sub }

// Locales are the pages' messages (en.json, zh.json, es.json).
func Locales() fs.FS { sub, _ := fs.Sub(localeFiles, "locales"); return sub }

// Funcs are the pages' template helpers; their names start with "desk".
func Funcs() template.FuncMap {
	return template.FuncMap{
		// deskAt is an attempt record's time (RFC 3339) to the second.
		"deskAt": func(s string) string {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04:05")
		},
		"deskTypes":      deskTypes,
		"deskHasType":    func(chosen []events.Type, t events.Type) bool { return slices.Contains(chosen, t) },
		"deskLast":       deskLast,
		"deskEventAbout": deskEventAbout,
		"deskPct": func(f float64) string {
			if f < 0 {
				return "—"
			}
			return fmt.Sprintf("%.1f%%", f)
		},
	}
}

// Extend adds the pages' templates, messages, navigation and helpers to a
// console's frame dependencies, before frame.New. A name the console uses
// already is refused: the pages never replace one of its own.
func (p *Pages) Extend(d *frame.Deps) error {
	tmpl, err := union(d.Templates, Templates())
	if err != nil {
		return err
	}
	locs, err := mergeLocales(d.Locales, Locales())
	if err != nil {
		return err
	}
	funcs := template.FuncMap{}
	maps.Copy(funcs, d.Funcs)
	for name, f := range Funcs() {
		if _, dup := funcs[name]; dup {
			return fmt.Errorf("account: template func %s is the console's", name)
		}
		funcs[name] = f
	}
	d.Templates, d.Locales, d.Funcs, d.Nav = tmpl, locs, funcs, append(d.Nav, Nav()...)
	d.LocksPath = "/team" // owners unlock second factors on the Team page
	d.Sandbox = p.sandbox // a sandbox merchant's pages carry the sandbox bar
	return nil
}

// sandbox is whether the session's merchant is a sandbox one.
func (p *Pages) sandbox(ctx context.Context, s *access.Session) (bool, error) {
	return p.svc.Keys.Sandbox(ctx, access.ActorOf(s, ""))
}

// union is the files at the roots of a and b (a may be nil) in one FS.
func union(a, b fs.FS) (fs.FS, error) {
	out := memFS{}
	for _, fsys := range []fs.FS{a, b} {
		if fsys == nil {
			continue
		}
		names, err := fs.Glob(fsys, "*")
		if err != nil {
			return nil, fmt.Errorf("account: list templates: %w", err)
		}
		for _, n := range names {
			if _, dup := out[n]; dup {
				return nil, fmt.Errorf("account: template %s is the console's", n)
			}
			data, err := fs.ReadFile(fsys, n)
			if err != nil {
				return nil, fmt.Errorf("account: read template %s: %w", n, err)
			}
			out[n] = data
		}
	}
	return out, nil
}

// mergeLocales is each language's messages of a (may be nil) and b in one
// file per language.
func mergeLocales(a, b fs.FS) (fs.FS, error) {
	out := memFS{}
	for _, lang := range frame.Langs {
		msgs := map[string]string{}
		for _, fsys := range []fs.FS{a, b} {
			if fsys == nil {
				continue
			}
			raw, err := fs.ReadFile(fsys, lang+".json")
			if err != nil {
				return nil, fmt.Errorf("account: read %s messages: %w", lang, err)
			}
			var m map[string]string
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("account: parse %s messages: %w", lang, err)
			}
			for id, s := range m {
				if _, dup := msgs[id]; dup {
					return nil, fmt.Errorf("account: message %s is the console's", id)
				}
				msgs[id] = s
			}
		}
		data, _ := json.Marshal(msgs) // a map of strings always marshals
		out[lang+".json"] = data
	}
	return out, nil
}

// Register mounts the pages on the logged-in group the frame returned.
func (p *Pages) Register(g fiber.Router, ui *frame.UI) {
	h := handlers{p: p, ui: ui}
	g.Get("/webhooks", ui.Require(access.PermWebhooksRead), h.webhooks)
	g.Post("/webhooks/resend", ui.Require(access.PermWebhooksResend), h.resend)
	g.Post("/webhooks/resend-dead", ui.Require(access.PermWebhooksResend), h.resendDead)
	ep := endpointDesk{h}
	g.Post("/webhooks/endpoints", ui.Require(access.PermSettingsWrite), ep.add)
	g.Get("/webhooks/endpoints/:id", ui.Require(access.PermWebhooksRead), ep.show)
	g.Post("/webhooks/endpoints/:id", ui.Require(access.PermSettingsWrite), ep.update)
	g.Post("/webhooks/endpoints/:id/rotate", ui.Require(access.PermKeysRotate), ep.rotate)
	g.Post("/webhooks/endpoints/:id/remove", ui.Require(access.PermSettingsWrite), ep.remove)
	g.Post("/webhooks/endpoints/:id/test", ui.Require(access.PermWebhooksResend), ep.test)
	g.Post("/webhooks/endpoints/:id/resend", ui.Require(access.PermWebhooksResend), ep.resend)
	g.Post("/webhooks/endpoints/:id/replay", ui.Require(access.PermWebhooksResend), ep.replay)
	g.Get("/developers", ui.Require(access.PermOrdersRead), h.developers)
	g.Post("/developers/rotate/:what", ui.Require(access.PermKeysRotate), h.rotate)
	g.Post("/developers/confirm-webhook-key", ui.Require(access.PermKeysRotate), h.confirmWebhookKey)
	g.Post("/developers/callback", ui.Require(access.PermSettingsWrite), h.callback)
	g.Post("/developers/test-event", ui.Require(access.PermSettingsWrite), h.testEvent)
	g.Get("/developers/sdk/:lang", ui.Require(access.PermOrdersRead), h.sdk)
	g.Get("/developers/signature", ui.Require(access.PermSandboxDrive), h.debugger)
	g.Post("/developers/signature", ui.Require(access.PermSandboxDrive), h.debugger)
	g.Get("/balance", ui.Require(access.PermBalanceRead), h.balance)
	g.Get("/balance/statement.csv", ui.Require(access.PermBalanceRead), h.statementCSV)
	po := payoutDesk{h}
	g.Get("/payouts", ui.Require(access.PermPayoutsRead), po.payouts)
	g.Post("/payouts/destinations", ui.Require(access.PermPayoutDestinations), po.addDestination)
	g.Post("/payouts/destinations/remove", ui.Require(access.PermPayoutDestinations), po.removeDestination)
	g.Post("/payouts/ask", ui.Require(access.PermPayoutsRequest), po.askPayout)
	g.Get("/team", ui.Require(access.PermUsersRead), h.team)
	g.Post("/team/invite", ui.Require(access.PermUsersManage), h.invite)
	g.Post("/team/totp", ui.Require(access.PermUsersManage), h.requireTOTP)
	g.Post("/team/users/:id/:op", ui.Require(access.PermUsersManage), h.userOp)
	g.Get("/team/audit", ui.Require(access.PermAuditRead), h.auditLog)
	g.Get("/team/audit.csv", ui.Require(access.PermAuditRead), h.auditExport)
}

// handlers are the routes' functions.
type handlers struct {
	p  *Pages
	ui *frame.UI
}

// form is a form field, copied out of fasthttp's buffers and trimmed.
func form(c *fiber.Ctx, name string) string {
	return strings.TrimSpace(strings.Clone(c.FormValue(name)))
}

// query is a query parameter, copied.
func query(c *fiber.Ctx, name string) string { return strings.TrimSpace(strings.Clone(c.Query(name))) }

// done goes back to path after a form, with a notice the page shows.
func (h handlers) done(c *fiber.Ctx, path, notice string) error {
	return h.ui.Redirect(c, h.ui.Config().Base+path+"?done="+notice)
}

// notice is the page's message id of a done= notice, "" for none; only
// ids of this package are shown.
func notice(v *frame.View, c *fiber.Ctx) string {
	id := "desk_done_" + query(c, "done")
	if id == "desk_done_" || !v.L.Has(id) {
		return ""
	}
	return v.L.T(id)
}
