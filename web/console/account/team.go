package account

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/selfservice"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/server"
)

// teamData is the Team & security page.
type teamData struct {
	Team  *selfservice.Roster
	Roles []access.Role
	// SetupLink is a new user's (or a reissued) one-time setup link, shown
	// once in the answer to the form that made it.
	SetupLink  string
	SetupEmail string
	// Fixed are the users whose role and removal are not offered: the only
	// enabled owner (the use case would refuse: a merchant keeps an owner).
	// Self is the viewer, who is not offered removing themselves either.
	Fixed map[string]bool
	Self  string
	// The invitation as typed when it was refused, the refusal shown next
	// to the form.
	InviteEmail, InviteRole, InviteErr string
}

// team lists the users, their roles and TOTP, and the forms an owner has.
func (h handlers) team(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_team_title")
	v.Flash = notice(v, c)
	return h.teamPage(c, v, teamData{})
}

func (h handlers) teamPage(c *fiber.Ctx, v *frame.View, d teamData) error {
	t, err := h.p.svc.Team.Roster(c.UserContext(), h.ui.Actor(c))
	if err != nil {
		return h.ui.Fail(c, err)
	}
	d.Team, d.Roles = t, access.Roles(access.RealmMerchant)
	d.Fixed, d.Self = onlyOwner(t.Users), frame.SessionOf(c).UserID
	v.Data, v.Path = d, h.ui.Config().Base+"/team"
	return h.ui.Render(c, "desk_team", v)
}

// onlyOwner is the one enabled owner when there is exactly one: their
// role and removal are not offered.
func onlyOwner(users []*access.Account) map[string]bool {
	var owners []string
	for _, u := range users {
		if u.Role == access.RoleOwner && !u.Disabled {
			owners = append(owners, u.ID)
		}
	}
	if len(owners) != 1 {
		return map[string]bool{}
	}
	return map[string]bool{owners[0]: true}
}

// setupLink is the absolute link a setup token is used at, on the
// configured public URL: a request's Host header must not choose where an
// invitee sends the token.
func (h handlers) setupLink(token string) string {
	return h.p.publicURL + h.ui.Config().Base + "/setup/" + token
}

// maxEmail bounds an invited address (RFC 5321's path limit), under the
// shared free-text rule (audit.Text).
const maxEmail = 254

// invite makes a user and shows its setup link once.
func (h handlers) invite(c *fiber.Ctx) error {
	email, err := audit.Text("email", strings.Clone(c.FormValue("email")), maxEmail)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	u, token, err := h.p.svc.Team.Invite(c.UserContext(), h.ui.Actor(c), email, access.Role(form(c, "role")))
	if err != nil {
		var de *platform.Error
		if errors.As(err, &de) && (de.Kind == platform.KindInvalidParameter || de.Kind == platform.KindConflict) {
			v := h.ui.View(c, "desk_team_title")
			v.Status = server.Classify(err).Code
			return h.teamPage(c, v, teamData{InviteEmail: email, InviteRole: form(c, "role"), InviteErr: de.Msg})
		}
		return h.ui.Fail(c, err)
	}
	v := h.ui.View(c, "desk_team_title")
	return h.teamPage(c, v, teamData{SetupLink: h.setupLink(token), SetupEmail: u.Email})
}

// userOp changes one user: role, remove, restore, unlock (a locked
// second factor), reissue.
func (h handlers) userOp(c *fiber.Ctx) error {
	ctx, w, id := c.UserContext(), h.ui.Actor(c), strings.Clone(c.Params("id"))
	var err error
	done := "user"
	switch strings.Clone(c.Params("op")) {
	case "role":
		err = h.p.svc.Team.SetRole(ctx, w, id, access.Role(form(c, "role")))
	case "remove":
		err = h.p.svc.Team.SetDisabled(ctx, w, id, true)
	case "restore":
		err = h.p.svc.Team.SetDisabled(ctx, w, id, false)
	case "unlock":
		err, done = h.p.svc.Team.UnlockSecondFactor(ctx, w, id), "unlock"
	case "reissue":
		token, err := h.p.svc.Team.Reissue(ctx, w, id)
		if err != nil {
			return h.ui.Fail(c, err)
		}
		v := h.ui.View(c, "desk_team_title")
		return h.teamPage(c, v, teamData{SetupLink: h.setupLink(token)})
	default:
		return h.ui.Fail(c, fiber.ErrNotFound)
	}
	if err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/team", done)
}

// requireTOTP turns the merchant's TOTP requirement on or off.
func (h handlers) requireTOTP(c *fiber.Ctx) error {
	on := form(c, "on")
	if on != "" && on != "1" { // a checkbox: "1" or absent, nothing else is a choice
		return h.ui.Fail(c, platform.Errorf(platform.KindInvalidParameter, "on must be 1 or absent"))
	}
	if err := h.p.svc.Team.RequireTOTP(c.UserContext(), h.ui.Actor(c), on == "1"); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/team", "totp")
}

// auditData is the audit log page.
type auditData struct {
	Actor, Action, From, To string
	Page                    *audit.Page
	Lines                   []auditLine // the page's rows as sentences
	Pager                   frame.Pager
	Export                  string // the CSV link of this filter
}

// auditFilter reads the page's filter from the query.
func auditFilter(c *fiber.Ctx) (audit.Filter, auditData) {
	d := auditData{Actor: query(c, "actor"), Action: query(c, "action"), From: query(c, "from"), To: query(c, "to")}
	f := audit.Filter{Actor: d.Actor, Action: d.Action, Limit: 50}
	if t, err := time.Parse("2006-01-02", d.From); err == nil {
		f.From = t
	}
	if t, err := time.Parse("2006-01-02", d.To); err == nil {
		f.To = t.Add(24 * time.Hour)
	}
	f.Page = max(1, c.QueryInt("page", 1))
	return f, d
}

// auditLog searches the merchant's audit log.
func (h handlers) auditLog(c *fiber.Ctx) error {
	f, d := auditFilter(c)
	page, err := h.p.svc.AuditLog.Search(c.UserContext(), h.ui.Actor(c), f)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	q := c.Request().URI().QueryArgs()
	vals := map[string][]string{}
	q.VisitAll(func(k, v []byte) { vals[string(k)] = append(vals[string(k)], string(v)) })
	d.Page, d.Pager = page, frame.NewPager(h.ui.Config().Base+"/team/audit", vals, page.Page, page.Limit, int(page.Total)).Showing(len(page.Rows))
	d.Export = h.ui.Config().Base + "/team/audit.csv?" + strings.Clone(string(c.Request().URI().QueryString()))
	v := h.ui.View(c, "desk_audit_title")
	d.Lines = auditLines(v.L, page.Rows)
	v.Data = d
	return h.ui.Render(c, "desk_audit", v)
}

// auditExport streams the filter's entries as CSV: the export is checked
// and audited before the answer starts, then written as ClickHouse reads
// it, so a year of entries costs no memory. A failure halfway ends the
// file early; the operators' log says why.
func (h handlers) auditExport(c *fiber.Ctx) error {
	f, _ := auditFilter(c)
	write, err := h.p.svc.AuditLog.Export(c.UserContext(), h.ui.Actor(c), f)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="audit.csv"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Type("csv", "utf-8")
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
		defer cancel()
		if err := write(ctx, bw); err != nil {
			h.p.log.Error("audit export failed", "err", err)
		}
	})
	return nil
}

// exportTimeout bounds one audit export's streaming.
const exportTimeout = 10 * time.Minute
