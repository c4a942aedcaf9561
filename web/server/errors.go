package server

import (
	"errors"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
)

// htmlErrorsLocal marks a request whose errors are shown as a page, not JSON
// (the hosted GET /api/createorder).
const htmlErrorsLocal = "gw.htmlErrors"

// WantHTMLErrors makes the error handler answer this request with a page.
func WantHTMLErrors(c *fiber.Ctx) { c.Locals(htmlErrorsLocal, true) }

// Classify is platform.Classify plus the router's own refusals (no route, a
// method a route does not take, a body over the limit), which only the HTTP
// server can meet.
func Classify(err error) platform.ErrorBody {
	var rl *platform.RateLimited
	var de *platform.Error
	var fe *fiber.Error
	if !errors.As(err, &rl) && !errors.As(err, &de) && errors.As(err, &fe) {
		kind := platform.KindBadRequest
		switch {
		case fe.Code == http.StatusNotFound:
			kind = platform.KindRouteNotFound
		case fe.Code == http.StatusMethodNotAllowed:
			kind = platform.KindMethodNotAllowed
		case fe.Code == http.StatusRequestEntityTooLarge:
			kind = platform.KindTooLarge
		case fe.Code >= 500:
			kind = platform.KindInternal
		}
		return platform.ErrorBody{Code: fe.Code, Error: string(kind), Msg: fe.Message}
	}
	return platform.Classify(err)
}

// ErrorHandler is fiber's ErrorHandler for every role.
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		body := Classify(err)
		var rl *platform.RateLimited
		var de *platform.Error
		switch {
		case errors.As(err, &rl):
			c.Set(fiber.HeaderRetryAfter, rl.RetryAfterSeconds())
		case errors.As(err, &de) && de.RetryAfter > 0:
			c.Set(fiber.HeaderRetryAfter, (&platform.RateLimited{RetryAfter: de.RetryAfter}).RetryAfterSeconds())
		}
		if body.Code >= 500 {
			log.Error("request failed", "method", c.Method(), "path", c.Path(),
				"request_id", platform.RequestID(c.UserContext()), "err", err)
		}
		if html, _ := c.Locals(htmlErrorsLocal).(bool); html {
			c.Status(body.Code).Type("html", "utf-8")
			return errorPage.Execute(c.Response().BodyWriter(), body)
		}
		return c.Status(body.Code).JSON(body)
	}
}

var errorPage = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Payment error</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}code{background:#f3f3f3;padding:.1rem .3rem}</style></head>
<body><h1>The payment could not be started</h1><p>{{.Msg}}</p>
<p>Error <code>{{.Error}}</code> (HTTP {{.Code}}).</p></body></html>
`))
