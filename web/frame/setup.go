package frame

import (
	"crypto/subtle"
	"encoding/base64"
	"html/template"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/skip2/go-qrcode"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// setupView is the setup page's data. The TOTP secret travels in the form
// until CompleteSetup checks a code of it (docs/consoles.md).
type setupView struct {
	Token    string
	Email    string
	Required bool
	Secret   string
	URL      string
	QR       template.URL // data:image/png, drawn by access (or here, again)
	Codes    []string     // the recovery codes, shown once
}

// setupPage shows a setup link's form: password twice, and the TOTP
// enrolment as text and as a QR code.
func (e entry) setupPage(c *fiber.Ctx) error {
	v := e.ui.View(c, "setup_title")
	acct, enr, required, err := e.ui.auth.BeginSetup(c.UserContext(), strings.Clone(c.Params("token")))
	if err != nil {
		return e.ui.Fail(c, err)
	}
	if acct.Realm != e.ui.cfg.Realm {
		return e.ui.Fail(c, platform.Errorf(platform.KindForbidden, "this setup link is unknown, used or expired"))
	}
	v.CSRF = e.preToken(c)
	v.Data = setupView{Token: strings.Clone(c.Params("token")), Email: acct.Email, Required: required, Secret: enr.Secret, URL: enr.URL, QR: pngURL(enr.QRPNG)}
	return e.ui.Render(c, "setup", v)
}

// setupPost completes the setup and shows the recovery codes once; a wrong
// code or a refused password shows the form again with the same secret.
func (e entry) setupPost(c *fiber.Ctx) error {
	v := e.ui.View(c, "setup_title")
	if !e.checkPre(c) {
		return e.ui.Fail(c, errCSRF)
	}
	v.CSRF = e.preToken(c)
	token := strings.Clone(c.Params("token"))
	sv := setupView{Token: token, Secret: strings.Clone(c.FormValue("secret")), URL: strings.Clone(c.FormValue("otpauth")),
		Required: c.FormValue("required") == "1", Email: strings.Clone(c.FormValue("email"))}
	code := strings.TrimSpace(c.FormValue("code"))
	secret := sv.Secret
	if code == "" && !sv.Required {
		secret = "" // no second factor, where the merchant allows it
	}
	var err error
	if pw := c.FormValue("password"); subtle.ConstantTimeCompare([]byte(pw), []byte(c.FormValue("password2"))) != 1 {
		err = platform.Errorf(platform.KindInvalidParameter, "%s", v.L.T("setup_mismatch"))
	} else {
		_, sv.Codes, err = e.ui.auth.CompleteSetup(c.UserContext(), access.Setup{Realm: e.ui.cfg.Realm, Token: token, Password: strings.Clone(pw),
			TOTPSecret: secret, TOTPCode: strings.Clone(code), Source: e.ui.Source(c)})
	}
	if err != nil {
		body := server.Classify(err)
		if body.Code == fiber.StatusForbidden || body.Code >= 500 {
			return e.ui.Fail(c, err)
		}
		v.Status, v.Problem = body.Code, body.Msg
		if strings.HasPrefix(sv.URL, "otpauth://totp/") {
			if png, err := qrcode.Encode(sv.URL, qrcode.Medium, 256); err == nil {
				sv.QR = pngURL(png)
			}
		}
		v.Data = sv
		return e.ui.Render(c, "setup", v)
	}
	v.Data = sv
	return e.ui.Render(c, "setup_done", v)
}

func pngURL(b []byte) template.URL {
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
}
