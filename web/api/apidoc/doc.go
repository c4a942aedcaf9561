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
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/gofiber/fiber/v2"
)

//go:embed openapi.json
var document []byte

// Document is the OpenAPI document, as served.
func Document() []byte { return document }

// ForServer is the document whose servers entry is publicURL, the
// gateway's GATEWAY_PUBLIC_URL: "try it" buttons and generated clients then
// reach the gateway that served it, not the make run default the file names.
// Only the servers value is replaced, so the rest is served as written.
func ForServer(publicURL string) ([]byte, error) {
	var top struct {
		Servers json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(document, &top); err != nil {
		return nil, fmt.Errorf("read openapi.json: %w", err)
	}
	if len(top.Servers) == 0 || bytes.Count(document, top.Servers) != 1 {
		return nil, fmt.Errorf("openapi.json: want exactly one servers value to replace")
	}
	servers, err := json.Marshal([]map[string]string{{"url": publicURL, "description": "this gateway (GATEWAY_PUBLIC_URL)"}})
	if err != nil {
		return nil, fmt.Errorf("openapi.json servers: %w", err)
	}
	return bytes.Replace(document, top.Servers, servers, 1), nil
}

// Handler answers GET /openapi.json with doc (ForServer's).
func Handler(doc []byte) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Send(doc)
	}
}
