package frame

import (
	"errors"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

const sessionLocal = "frame.session"

// CSRFField is the form field (or X-CSRF-Token header) every non-GET
// request carries.
const CSRFField = "csrf"

// Authenticated admits a request with a live session of the console's
// realm; any other goes to the login page (a session of the other realm
// is no session here). For anything but GET and HEAD the session's CSRF
// token must come back in the form or the X-CSRF-Token header: a missing
// or wrong one is a 403 page and nothing is done.
func (u *UI) Authenticated() fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := strings.Clone(c.Cookies(u.cfg.CookieName))
		s, err := u.auth.Session(c.UserContext(), id)
		if errors.Is(err, access.ErrNoSession) || (err == nil && s.Realm != u.cfg.Realm) {
			return u.toLogin(c, id != "")
		}
		if err != nil {
			return u.Fail(c, err)
		}
		c.Locals(sessionLocal, s)
		if !isSafe(c.Method()) {
			token := c.FormValue(CSRFField)
			if token == "" {
				token = c.Get("X-CSRF-Token")
			}
			if !s.CheckCSRF(token) {
				return u.Fail(c, errCSRF)
			}
		}
		return c.Next()
	}
}

// errCSRF is a form without the session's token.
var errCSRF = platform.Errorf(platform.KindForbidden, "The form is missing its security token, or the token is stale. Reload the page and try again.")

func isSafe(method string) bool { return method == fiber.MethodGet || method == fiber.MethodHead }

// toLogin ends a dead cookie and sends the person to log in, back to the
// page asked for afterwards (a GET only: a form's data is not replayed).
func (u *UI) toLogin(c *fiber.Ctx, hadCookie bool) error {
	if hadCookie {
		u.clearCookie(c)
	}
	to := u.cfg.Base + "/login"
	if isSafe(c.Method()) {
		to += "?next=" + url.QueryEscape(string(c.Request().URI().RequestURI()))
	}
	if c.Get("Accept") == "text/event-stream" {
		// An event stream cannot follow a redirect: 204 tells the browser
		// to stop reconnecting, and the page reloads into the login.
		return c.SendStatus(fiber.StatusNoContent)
	}
	return u.Redirect(c, to)
}

// SessionOf is the session Authenticated admitted; nil outside it.
func SessionOf(c *fiber.Ctx) *access.Session {
	s, _ := c.Locals(sessionLocal).(*access.Session)
	return s
}

// Require admits only a person holding p; anyone else gets a 403 page and
// nothing is done. Put it on every route after Authenticated.
func (u *UI) Require(p access.Permission) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !access.Can(SessionOf(c), u.cfg.Realm, p) {
			return u.Fail(c, platform.Errorf(platform.KindForbidden, "your role may not do this"))
		}
		return c.Next()
	}
}

// Source is the client address for the audit log (platform.ClientIP: the
// peer, or the forwarded address a trusted proxy gives).
func (u *UI) Source(c *fiber.Ctx) string { return server.ClientAddr(u.deps.ClientIP, c).String() }

// Actor is the session's person acting from this request's address.
func (u *UI) Actor(c *fiber.Ctx) access.Actor { return access.ActorOf(SessionOf(c), u.Source(c)) }

func (u *UI) setCookie(c *fiber.Ctx, id string) {
	c.Cookie(&fiber.Cookie{Name: u.cfg.CookieName, Value: id, Path: u.cfg.Base, HTTPOnly: true,
		SameSite: fiber.CookieSameSiteStrictMode, Secure: u.secure(c)})
}

func (u *UI) clearCookie(c *fiber.Ctx) {
	c.Cookie(&fiber.Cookie{Name: u.cfg.CookieName, Value: "", Path: u.cfg.Base, MaxAge: -1, HTTPOnly: true,
		SameSite: fiber.CookieSameSiteStrictMode, Secure: u.secure(c)})
}
