// Package admin is the operator console: pages under /admin on
// the admin listener (GATEWAY_ADMIN_ADDR) and never on the public one, for
// operator accounts only (access.RealmOperator, on web/frame). The
// pages call the use cases of package operator, which the CLI calls too,
// so a change made here and one made with `gateway ...` are checked alike
// and leave the same audit entries.
package admin

import (
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/web/server"
)

// Prefix is where every operator page lives.
const Prefix = "/admin"

// SetupPath is where a setup link points, followed by its token: the page
// a new operator (or one who lost a password or an authenticator) sets a
// password and enrols TOTP on (the frame's /setup/:token).
const SetupPath = Prefix + "/setup/"

// NewApp is the admin listener's app: the console under /admin and nothing
// else, so that an address scanner finds no merchant API, payer page or
// metric there either. Forwarding headers (X-Forwarded-Proto, -Host) are
// believed only from trusted (GATEWAY_TRUSTED_PROXIES).
func NewApp(log *slog.Logger, trusted []string, c *Console) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:                 "gateway-admin",
		EnableTrustedProxyCheck: true,
		TrustedProxies:          trusted,
		ReadTimeout:             15 * time.Second,
		WriteTimeout:            15 * time.Second,
		BodyLimit:               1 << 20,
		DisableStartupMessage:   true,
		ErrorHandler:            server.ErrorHandler(log),
	})
	app.Server().HeaderReceived = uploads
	c.register(app)
	app.Use(server.NotFound)
	return app
}

// uploads lets a statement through: the one request of the console whose
// body may be larger than the app's bound, and slower to arrive and to
// import. fasthttp keeps a multipart file over 16 MiB on disk; any other
// request keeps the app's limits.
func uploads(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if string(h.Method()) != fiber.MethodPost || string(h.RequestURI()) != Prefix+reconPath ||
		!strings.HasPrefix(string(h.ContentType()), fiber.MIMEMultipartForm) {
		return fasthttp.RequestConfig{}
	}
	return fasthttp.RequestConfig{MaxRequestBodySize: statementUpload, ReadTimeout: 5 * time.Minute, WriteTimeout: 5 * time.Minute}
}
