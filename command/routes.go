package command

import "github.com/gofiber/fiber/v2"

// Handlers are the command side's endpoints.
type Handlers struct {
	Create   *CreateOrder
	Sandbox  *SandboxOrders
	Checkout *SandboxCheckout
	QR       *QRImage
	// Pages limits the payer-facing pages per client IP.
	Pages fiber.Handler
}

// Register mounts the command routes.
func (h *Handlers) Register(r fiber.Router) {
	r.Post("/api/createorder", h.Create.Post)
	r.Get("/api/createorder", h.Create.Get)
	r.Post("/sandbox/orders/:paymentId/pay", h.Sandbox.Pay)
	r.Post("/sandbox/orders/:paymentId/fail", h.Sandbox.Fail)
	r.Get("/sandbox/checkout/:paymentId", h.Pages, h.Checkout.Page)
	r.Post("/sandbox/checkout/:paymentId", h.Pages, h.Checkout.Submit)
	r.Get("/payment/:paymentId/qr.png", h.Pages, h.QR.Serve)
}
