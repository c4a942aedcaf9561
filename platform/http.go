package platform

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewApp is the fiber app every role mounts its routes on, with the shared
// error mapping, bounds, request ids and request metrics.
func NewApp(log *slog.Logger, reg prometheus.Registerer, gather prometheus.Gatherer) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName: "gateway",
		// Handlers bound their own bodies (createorder at 64 KiB) so that an
		// oversized one still gets the JSON error body; this is the backstop.
		BodyLimit:             1 << 20,
		ReadTimeout:           15 * time.Second,
		WriteTimeout:          15 * time.Second,
		IdleTimeout:           120 * time.Second,
		DisableStartupMessage: true,
		ErrorHandler:          ErrorHandler(log),
	})
	app.Use(newHTTPMetrics(reg).observe)
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(gather, promhttp.HandlerOpts{})))
	return app
}

// NotFound answers every unmatched route with the JSON error body.
func NotFound(c *fiber.Ctx) error {
	return Errorf(KindRouteNotFound, "no route for %s %s", c.Method(), c.Path())
}

// okBody is DESIGN.md's success response.
type okBody struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	Data any    `json:"data"`
}

// OK answers {"code":0,"msg":"success","data":data}.
func OK(c *fiber.Ctx, data any) error {
	return c.JSON(okBody{Msg: "success", Data: data})
}
