package checkout

import (
	"html/template"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// screen is what every payer page draws with: the pages' settings (the
// CSRF key among them, which Prepare may fill in later, so the pages share
// one screen), the message catalogues, templates and assets, the counters
// and the log. Pages and each step's type hold it; its methods wrap a
// handler, render, redirect and check the CSRF token alike for all.
type screen struct {
	cfg      Config
	catalogs map[string]*Catalog
	tmpl     map[string]*template.Template
	assets   *assets
	m        *metrics
	log      *slog.Logger
}

// methodSteps are the choices an order's page may ask for: the method,
// then fiatpsp's or cryptopsp's own second step.
type methodSteps struct {
	*screen
	orders OrderPorts
}

// usdtStep is USDT direct pay: the network, the amount and its QR code,
// the transaction hash form, and the review wait. After a hash it shows
// the order's page again (orderPage).
type usdtStep struct {
	*screen
	orders    OrderPorts
	orderPage func(c *fiber.Ctx, v *view, o *schema.Order) error
}

// loginStep is paying from a merchant balance: the login, the pay button
// and the logout. forOrder names the order's merchant and language on its
// pages as on every order page.
type loginStep struct {
	*screen
	orders   OrderPorts
	payers   Payers
	ips      *platform.ClientIP
	forOrder func(c *fiber.Ctx, v *view, o *schema.Order) error
}
