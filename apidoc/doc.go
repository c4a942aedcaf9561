// Package apidoc holds the OpenAPI 3.1 description of the merchant-facing
// API and serves it at GET /openapi.json. It is a package of its own because
// the document describes the command and the query side together, which never
// import each other, and every node serves it whatever its roles. The document
// is one embedded JSON file so that it is edited as what merchants read, and
// the gateway's end-to-end test validates real responses against it.
//
// Layout of openapi.json, for whoever adds an endpoint: one entry under
// "paths" per path (cancel and refund go beside /api/createorder), request
// and response shapes under components.schemas, reusable headers and
// parameters (an Idempotency-Key header, say) under components.parameters,
// error answers under components.responses, and the webhook payloads under
// the top-level "webhooks".
package apidoc

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

//go:embed openapi.json
var document []byte

// Document is the OpenAPI document, as served.
func Document() []byte { return document }

// Serve answers GET /openapi.json.
func Serve(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(document)
}
