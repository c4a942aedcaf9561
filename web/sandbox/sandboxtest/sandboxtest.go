// Package sandboxtest is the HTTP side of the provider families' tests: the
// fiber app they mount a simulator and a stand-in notification endpoint on,
// and the glue from a fiber request to provider/internal/providertest's
// fiber-free receiver. It lives here, beside the simulators, so that the
// families themselves import no HTTP framework. Only _test files import it.
package sandboxtest

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// App is a fiber app as the tests mount simulators and receivers on.
func App() *fiber.App { return fiber.New(fiber.Config{DisableStartupMessage: true}) }

// Header is a request's headers, copied out of fiber's reused buffers.
func Header(c *fiber.Ctx) http.Header {
	h := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { h.Add(string(k), string(v)) })
	return h
}

// Receiver is a stand-in notification endpoint: it takes a delivery's
// headers, body and path after the route's prefix and says how to answer.
type Receiver interface {
	Receive(header http.Header, body []byte, path string) (status int, answer string)
}

// Handle mounts r; the route must end in "/*".
func Handle(r Receiver) fiber.Handler {
	return func(c *fiber.Ctx) error {
		status, answer := r.Receive(Header(c), append([]byte(nil), c.Body()...), c.Params("*"))
		return c.Status(status).SendString(answer)
	}
}
