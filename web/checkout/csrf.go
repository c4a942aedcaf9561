package checkout

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"

	"github.com/gofiber/fiber/v2"
)

// Forms carry a token that is the HMAC of a random cookie: a page of ours
// can read the token, another site can neither read it nor set our cookie,
// and no server-side state is kept. The cookie is SameSite=Lax, so a
// cross-site POST does not even carry it.
const csrfCookie = "gw_csrf"

func (p *screen) csrfToken(secret string) string {
	mac := hmac.New(sha256.New, p.cfg.CSRFKey)
	mac.Write([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// withCSRF gives the view a token, setting the cookie when the browser has
// none yet.
func (p *screen) withCSRF(c *fiber.Ctx, v *view) {
	secret := c.Cookies(csrfCookie)
	if len(secret) != 43 {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		secret = base64.RawURLEncoding.EncodeToString(b)
		c.Cookie(&fiber.Cookie{Name: csrfCookie, Value: secret, Path: "/", HTTPOnly: true,
			SameSite: fiber.CookieSameSiteLaxMode, Secure: p.cfg.secure()})
	}
	v.CSRF = p.csrfToken(secret)
}

// checkCSRF refuses a form without our token.
func (p *screen) checkCSRF(c *fiber.Ctx) error {
	secret, got := c.Cookies(csrfCookie), c.FormValue("csrf")
	if secret == "" || got == "" || !hmac.Equal([]byte(got), []byte(p.csrfToken(secret))) {
		return errCSRF
	}
	return nil
}
