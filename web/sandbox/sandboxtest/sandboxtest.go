// Package sandboxtest is the HTTP side of the provider families' tests: the
// fiber app they mount a simulator and a stand-in notification endpoint on,
// and the glue from a fiber request to a plain receiving function. It lives
// here, beside the simulators, so that the families and their tests import
// no HTTP framework. Only _test files import it.
package sandboxtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/paygate/gateway/provider"
)

// App is a fiber app as the tests mount simulators and receivers on.
func App() *fiber.App { return fiber.New(fiber.Config{DisableStartupMessage: true}) }

// Delivery is one request to a stand-in endpoint, copied out of fiber's
// reused buffers.
type Delivery struct {
	Header   http.Header
	Body     []byte
	Path     string // what the route's "*" matched
	RemoteIP netip.Addr
}

// Handle mounts receive at a route (ending in "/*" when Path is wanted) and
// writes its Reply: a redirect to Location when it has one, else the
// status, the content type when set, and the body.
func Handle(receive func(context.Context, Delivery) provider.Reply) fiber.Handler {
	return func(c *fiber.Ctx) error {
		d := Delivery{Header: http.Header{}, Body: append([]byte(nil), c.Body()...), Path: c.Params("*")}
		c.Request().Header.VisitAll(func(k, v []byte) { d.Header.Add(string(k), string(v)) })
		d.RemoteIP, _ = netip.ParseAddr(c.IP())
		rep := receive(c.UserContext(), d)
		if rep.Location != "" {
			return c.Redirect(rep.Location, rep.Status)
		}
		if rep.ContentType != "" {
			c.Set(fiber.HeaderContentType, rep.ContentType)
		}
		return c.Status(rep.Status).SendString(rep.Body)
	}
}

// NewServer serves app over real HTTP on a local port, for the tests whose
// clients need a URL; the caller closes it.
func NewServer(app *fiber.App) *httptest.Server { return httptest.NewServer(adaptor.FiberApp(app)) }
