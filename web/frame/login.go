package frame

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// entry is the way in: the login form with its pre-session cookie, the
// logout, and the one-time setup link's page. It draws with the frame it
// belongs to.
type entry struct{ ui *UI }

// The login and setup forms come before any session, so their CSRF token
// is a random cookie the form repeats (double submit): another site can
// neither read nor set a SameSite=Strict cookie of ours, so it cannot
// post a form of ours in the person's name (login CSRF).
func (e entry) preCookie() string { return e.ui.cfg.CookieName + "_pre" }

func (e entry) preToken(c *fiber.Ctx) string {
	tok := strings.Clone(c.Cookies(e.preCookie()))
	if len(tok) != 43 {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		tok = base64.RawURLEncoding.EncodeToString(b)
		c.Cookie(&fiber.Cookie{Name: e.preCookie(), Value: tok, Path: e.ui.cfg.Base, HTTPOnly: true,
			SameSite: fiber.CookieSameSiteStrictMode, Secure: e.ui.secure(c)})
	}
	return tok
}

func (e entry) checkPre(c *fiber.Ctx) bool {
	tok, got := c.Cookies(e.preCookie()), c.FormValue(CSRFField)
	return len(tok) == 43 && subtle.ConstantTimeCompare([]byte(tok), []byte(got)) == 1
}

type loginView struct {
	Email, Next string
}

func (e entry) loginPage(c *fiber.Ctx) error {
	v := e.ui.View(c, "login_title")
	v.CSRF = e.preToken(c)
	v.Data = loginView{Next: e.ui.localNext(c.Query("next"))}
	return e.ui.Render(c, "login", v)
}

// loginPost runs access.Login (its per-IP and per-account limits, the
// password, the second factor) and, on success, sets the new session's
// cookie; the session the browser came with is ended by Login, so an id
// planted before the login is worthless (fixation).
func (e entry) loginPost(c *fiber.Ctx) error {
	v := e.ui.View(c, "login_title")
	if !e.checkPre(c) {
		return e.ui.Fail(c, errCSRF)
	}
	v.CSRF = e.preToken(c)
	lv := loginView{Email: strings.Clone(c.FormValue("email")), Next: e.ui.localNext(c.FormValue("next"))}
	v.Data = lv
	s, err := e.ui.auth.Login(c.UserContext(), access.LoginRequest{
		Realm: e.ui.cfg.Realm, Email: lv.Email, Password: strings.Clone(c.FormValue("password")),
		Code: strings.TrimSpace(strings.Clone(c.FormValue("code"))), IP: server.ClientAddr(e.ui.deps.ClientIP, c),
		OldSession: strings.Clone(c.Cookies(e.ui.cfg.CookieName)),
	})
	if err != nil {
		return e.loginRefused(c, v, err)
	}
	e.ui.setCookie(c, s.ID)
	return e.ui.Redirect(c, lv.Next)
}

// loginRefused shows the login form again with why: the one "wrong e-mail,
// password or code" (401), too many attempts (429 with Retry-After), or
// the login being unavailable (fails closed: 503).
func (e entry) loginRefused(c *fiber.Ctx, v *View, err error) error {
	body := server.Classify(err)
	var rl *platform.RateLimited
	switch {
	case errors.As(err, &rl):
		setRetryAfter(c, rl)
		v.Problem = v.L.T("login_limited")
	case body.Error == string(platform.KindBadCredentials):
		v.Problem = v.L.T("login_wrong")
	case body.Code >= 500:
		e.ui.log.Error("console login failed", "console", e.ui.cfg.Base, "err", err)
		v.Problem = v.L.T("error_503")
		body.Code = fiber.StatusServiceUnavailable
	default:
		v.Problem = body.Msg
	}
	v.Status = body.Code
	return e.ui.Render(c, "login", v)
}

// logout ends this session, or with everywhere=1 every session of the
// person ("log out everywhere").
func (e entry) logout(c *fiber.Ctx) error {
	if err := e.ui.auth.Logout(c.UserContext(), SessionOf(c), e.ui.Source(c), c.FormValue("everywhere") == "1"); err != nil {
		return e.ui.Fail(c, err)
	}
	e.ui.clearCookie(c)
	return e.ui.Redirect(c, e.ui.cfg.Base+"/login")
}
