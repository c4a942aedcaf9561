// Package admin is the operator console (issue 27): pages under /admin on
// the admin listener (GATEWAY_ADMIN_ADDR) and never on the public one, for
// operator accounts only (access.RealmOperator). The pages call the use
// cases of package operator, which the CLI calls too, so a change made
// here and one made with `gateway ...` leave the same audit entries.
package admin

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
)

// Prefix is where every operator page lives.
const Prefix = "/admin"

// NewApp is the admin listener's app: /admin and nothing else, so that an
// address scanner finds no merchant API, payer page or metric there either.
func NewApp(log *slog.Logger) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:               "gateway-admin",
		ReadTimeout:           15 * time.Second,
		WriteTimeout:          15 * time.Second,
		BodyLimit:             1 << 20,
		DisableStartupMessage: true,
		ErrorHandler:          platform.ErrorHandler(log),
	})
	app.Use(headers)
	app.Get(Prefix, index)
	app.Use(platform.NotFound)
	return app
}

// headers keep the console out of frames, caches and other origins'
// scripts from its first page.
func headers(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	c.Set("X-Frame-Options", "DENY")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Cache-Control", "no-store")
	return c.Next()
}

// index says where the operator is until the pages (which need the shared
// console frame) are mounted: the listener itself is what phase one
// delivers, and the CLI (`gateway operator`, `gateway exceptions`, ...) is
// how operators act meanwhile.
func index(c *fiber.Ctx) error {
	c.Type("txt", "utf-8")
	return c.SendString("gateway operator console\n")
}

// SetupPath is where a setup link points, followed by its token: the page
// a new operator (or one who lost a password or an authenticator) sets a
// password and enrols TOTP on.
const SetupPath = Prefix + "/setup/"
