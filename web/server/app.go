package server

import (
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/platform"
)

// NewApp is the fiber app every role mounts its routes on, with the shared
// error mapping, bounds, request ids and request metrics. It serves /metrics
// from gather; a nil gather serves none, for a public listener whose metrics
// are on the operations listener (NewOpsApp).
func NewApp(log *slog.Logger, reg prometheus.Registerer, gather prometheus.Gatherer) *fiber.App {
	return NewAppReading(platform.DefaultReadTimeout, nil, log, reg, gather)
}

// NewAppReading is NewApp with the request read bound read (Config's
// HTTPReadTimeout, GATEWAY_HTTP_READ_TIMEOUT) and the proxies whose
// forwarding headers are believed (GATEWAY_TRUSTED_PROXIES).
func NewAppReading(read time.Duration, trusted []string, log *slog.Logger, reg prometheus.Registerer, gather prometheus.Gatherer) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName: "gateway",
		// fiber believes X-Forwarded-Host and -Proto from anyone unless
		// told: only the trusted proxies may set what Hostname, Protocol
		// and BaseURL answer.
		EnableTrustedProxyCheck: true,
		TrustedProxies:          trusted,
		// Handlers bound their own bodies (createorder at 64 KiB) so that an
		// oversized one still gets the JSON error body; this is the backstop.
		BodyLimit:             1 << 20,
		ReadTimeout:           read,
		WriteTimeout:          15 * time.Second,
		IdleTimeout:           120 * time.Second,
		DisableStartupMessage: true,
		ErrorHandler:          ErrorHandler(log),
	})
	refuseUnknownMethods(app)
	app.Use(newHTTPMetrics(reg).observe)
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	if gather != nil {
		app.Get("/metrics", metricsHandler(gather))
	}
	return app
}

// NewOpsApp is the operations listener's app (GATEWAY_OPS_ADDR): /metrics
// and /healthz only, so that a merchant-facing listener need not expose
// what the gateway counts.
func NewOpsApp(log *slog.Logger, gather prometheus.Gatherer) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName: "gateway-ops",
		// Nobody's forwarding headers are believed here.
		EnableTrustedProxyCheck: true,
		ReadTimeout:             15 * time.Second,
		WriteTimeout:            15 * time.Second,
		DisableStartupMessage:   true,
		ErrorHandler:            ErrorHandler(log),
	})
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/metrics", metricsHandler(gather))
	app.Use(NotFound)
	return app
}

func metricsHandler(gather prometheus.Gatherer) fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(gather, promhttp.HandlerOpts{}))
}

// NotFound answers every unmatched route with the JSON error body, mounted
// last with Use. A path that is routed for other methods gets fiber's 405
// (with its Allow header) instead: fiber decides that only when the route
// chain runs out, which is what c.Next() does from here.
func NotFound(c *fiber.Ctx) error {
	var fe *fiber.Error
	if err := c.Next(); errors.As(err, &fe) && fe.Code == fiber.StatusMethodNotAllowed {
		return platform.Errorf(platform.KindMethodNotAllowed, "%s is not allowed on %s; allowed: %s", c.Method(), c.Path(), string(c.Response().Header.Peek(fiber.HeaderAllow)))
	}
	return platform.Errorf(platform.KindRouteNotFound, "no route for %s %s", c.Method(), c.Path())
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

// refuseUnknownMethods answers a method fiber does not know (PROPFIND,
// anything made up) with 400 in the JSON error body, as every other
// refusal. Fiber itself answers those with a plain-text 400 before any
// middleware or error handler runs, so the wrapper sits on the fasthttp
// server underneath. (Not 405: that must list the resource's methods in
// Allow, which a method no route knows cannot say.)
func refuseUnknownMethods(app *fiber.App) {
	srv := app.Server()
	next := srv.Handler
	known := make(map[string]bool, len(fiber.DefaultMethods))
	for _, m := range fiber.DefaultMethods {
		known[m] = true
	}
	srv.Handler = func(rc *fasthttp.RequestCtx) {
		if known[string(rc.Method())] {
			next(rc)
			return
		}
		body, _ := json.Marshal(Classify(platform.Errorf(platform.KindBadRequest, "HTTP method %.32q is not supported", rc.Method())))
		rc.SetStatusCode(platform.Status(platform.KindBadRequest))
		rc.SetContentType(fiber.MIMEApplicationJSON)
		rc.SetBody(body)
	}
}
