package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
)

// Handlers are the command side's routes of the API door: each reads its
// request, calls one use case of UseCases and writes its answer.
type Handlers struct {
	UseCases *command.UseCases
	// Simulators, when set, mounts the sandbox's simulated providers.
	Simulators func(r fiber.Router)
	// Pages limits the payer-facing pages per client IP.
	Pages fiber.Handler
	// Page, when set, renders the payment page GET /api/createorder
	// answers with (the checkout's); without it the GET redirects there.
	Page func(*fiber.Ctx, *schema.Order) error
	// PageError, when set, is the page of a refused hosted create.
	PageError func(*fiber.Ctx, HostedError) error
}

// Register mounts the command routes (provider notifications have their
// own door, web/notify).
func (h *Handlers) Register(r fiber.Router) {
	uc := h.UseCases
	r.Post("/api/createorder", idempotent(uc, createPost(uc)))
	r.Post("/api/order/cancel", idempotent(uc, cancelPost(uc)))
	r.Post("/api/order/refund", idempotent(uc, refundPost(uc)))
	if h.Page != nil {
		r.Get("/api/createorder", createHosted(uc, h.Page, h.PageError))
	} else {
		r.Get("/api/createorder", createRedirect(uc))
	}
	r.Post("/sandbox/orders/:paymentId/pay", sandboxDriver(uc.Sandbox, schema.StatusPaid))
	r.Post("/sandbox/orders/:paymentId/fail", sandboxDriver(uc.Sandbox, schema.StatusFailed))
	r.Get("/payment/:paymentId/qr.png", h.Pages, qrImage(uc.QR))
	r.Get("/api/fiatpsp/currencies", h.Pages, fiatpspCurrencies(uc))
	r.Get("/api/cryptopsp/currencies", h.Pages, cryptopspCurrencies(uc))
	r.Post("/api/fiatpsp/confirm", h.Pages, confirmFiatpsp(uc))
	r.Post("/api/cryptopsp/confirm", h.Pages, confirmCryptopsp(uc))
	if h.Simulators != nil {
		h.Simulators(r.Group("/sandbox/provider"))
	}
}
