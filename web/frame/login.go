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
)

// The login and setup forms come before any session, so their CSRF token
// is a random cookie the form repeats (double submit): another site can
// neither read nor set a SameSite=Strict cookie of ours, so it cannot
// post a form of ours in the person's name (login CSRF).
func (u *UI) preCookie() string { return u.cfg.CookieName + "_pre" }

func (u *UI) preToken(c *fiber.Ctx) string {
	tok := strings.Clone(c.Cookies(u.preCookie()))
	if len(tok) != 43 {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		tok = base64.RawURLEncoding.EncodeToString(b)
		c.Cookie(&fiber.Cookie{Name: u.preCookie(), Value: tok, Path: u.cfg.Base, HTTPOnly: true,
			SameSite: fiber.CookieSameSiteStrictMode, Secure: u.secure(c)})
	}
	return tok
}

func (u *UI) checkPre(c *fiber.Ctx) bool {
	tok, got := c.Cookies(u.preCookie()), c.FormValue(CSRFField)
	return len(tok) == 43 && subtle.ConstantTimeCompare([]byte(tok), []byte(got)) == 1
}

type loginView struct {
	Email, Next string
}

func (u *UI) loginPage(c *fiber.Ctx) error {
	v := u.View(c, "login_title")
	v.CSRF = u.preToken(c)
	v.Data = loginView{Next: u.localNext(c.Query("next"))}
	return u.Render(c, "login", v)
}

// loginPost runs access.Login (its per-IP and per-account limits, the
// password, the second factor) and, on success, sets the new session's
// cookie; the session the browser came with is ended by Login, so an id
// planted before the login is worthless (fixation).
func (u *UI) loginPost(c *fiber.Ctx) error {
	v := u.View(c, "login_title")
	if !u.checkPre(c) {
		return u.Fail(c, errCSRF)
	}
	v.CSRF = u.preToken(c)
	lv := loginView{Email: strings.Clone(c.FormValue("email")), Next: u.localNext(c.FormValue("next"))}
	v.Data = lv
	s, err := u.auth.Login(c.UserContext(), access.LoginRequest{
		Realm: u.cfg.Realm, Email: lv.Email, Password: strings.Clone(c.FormValue("password")),
		Code: strings.TrimSpace(strings.Clone(c.FormValue("code"))), IP: u.deps.ClientIP.Of(c),
		OldSession: strings.Clone(c.Cookies(u.cfg.CookieName)),
	})
	if err != nil {
		return u.loginRefused(c, v, err)
	}
	u.setCookie(c, s.ID)
	return u.Redirect(c, lv.Next)
}

// loginRefused shows the login form again with why: the one "wrong e-mail,
// password or code" (401), too many attempts (429 with Retry-After), or
// the login being unavailable (fails closed: 503).
func (u *UI) loginRefused(c *fiber.Ctx, v *View, err error) error {
	body := platform.Classify(err)
	var rl *platform.RateLimited
	switch {
	case errors.As(err, &rl):
		setRetryAfter(c, rl)
		v.Problem = v.L.T("login_limited")
	case body.Error == string(platform.KindBadCredentials):
		v.Problem = v.L.T("login_wrong")
	case body.Code >= 500:
		u.log.Error("console login failed", "console", u.cfg.Base, "err", err)
		v.Problem = v.L.T("error_503")
		body.Code = fiber.StatusServiceUnavailable
	default:
		v.Problem = body.Msg
	}
	v.Status = body.Code
	return u.Render(c, "login", v)
}

// logout ends this session, or with everywhere=1 every session of the
// person ("log out everywhere").
func (u *UI) logout(c *fiber.Ctx) error {
	if err := u.auth.Logout(c.UserContext(), SessionOf(c), u.Source(c), c.FormValue("everywhere") == "1"); err != nil {
		return u.Fail(c, err)
	}
	u.clearCookie(c)
	return u.Redirect(c, u.cfg.Base+"/login")
}
