package command

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// Handlers are the command side's endpoints.
type Handlers struct {
	Create  *CreateOrder
	Sandbox *SandboxOrders
	QR      *QRImage
	// Notifications are the providers' endpoints; Simulators, when set,
	// mounts the sandbox's simulated providers.
	Notifications *Notifications
	Confirm       *Confirm
	Simulators    func(r fiber.Router)
	// Pages limits the payer-facing pages per client IP.
	Pages fiber.Handler
	// Page, when set, renders the payment page GET /api/createorder
	// answers with (the checkout's); without it the GET redirects there.
	Page func(*fiber.Ctx, *schema.Order) error
	// PageError, when set, is the page of a refused hosted create.
	PageError func(*fiber.Ctx, HostedError) error
}

// Register mounts the command routes.
func (h *Handlers) Register(r fiber.Router) {
	r.Post("/api/createorder", h.Create.Idempotent(h.Create.Post))
	r.Post("/api/order/cancel", h.Create.Idempotent(h.Create.CancelPost))
	r.Post("/api/order/refund", h.Create.Idempotent(h.Create.RefundPost))
	if h.Page != nil {
		r.Get("/api/createorder", h.Create.Hosted(h.Page, h.PageError))
	} else {
		r.Get("/api/createorder", h.Create.Get)
	}
	r.Post("/sandbox/orders/:paymentId/pay", h.Sandbox.Pay)
	r.Post("/sandbox/orders/:paymentId/fail", h.Sandbox.Fail)
	r.Get("/payment/:paymentId/qr.png", h.Pages, h.QR.Serve)
	opts := h.Create.Options()
	r.Get("/api/fiatpsp/currencies", h.Pages, opts.FiatpspCurrencies)
	r.Get("/api/cryptopsp/currencies", h.Pages, opts.CryptopspCurrencies)
	r.Post("/api/fiatpsp/confirm", h.Pages, h.Confirm.Fiatpsp)
	r.Post("/api/cryptopsp/confirm", h.Pages, h.Confirm.Cryptopsp)
	for _, m := range []string{fiber.MethodPost, fiber.MethodGet} {
		r.Add(m, "/api/gatewaynotification/:family/*", h.Notifications.Live)
		r.Add(m, "/sandbox/gatewaynotification/:family/*", h.Notifications.Sandbox)
	}
	if h.Simulators != nil {
		h.Simulators(r.Group("/sandbox/provider"))
	}
}
