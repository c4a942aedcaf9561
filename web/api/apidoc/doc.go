// Package apidoc holds the OpenAPI 3.1 descriptions of the merchant-facing
// API, served at GET /openapi.json, and of the epay-compatible door
// (docs/epay.md), served at GET /openapi-epay.json. It is a package of its
// own because the documents describe the command and the query side
// together, which never import each other, and every node serves them
// whatever its roles. Each document is one embedded JSON file so that it is
// edited as what merchants read, and the gateway's end-to-end tests validate
// real responses against it.
//
// Layout of openapi.json, for whoever adds an endpoint: one entry under
// "paths" per path (cancel and refund go beside /api/createorder), request
// and response shapes under components.schemas, reusable headers and
// parameters (an Idempotency-Key header, say) under components.parameters,
// error answers under components.responses, and the webhook payloads under
// the top-level "webhooks". epay.json describes the door's paths
// (submit.php, mapi.php, api.php) and its GET notification as a webhook,
// in the protocol's words; the door's end-to-end tests validate its real
// answers against it.
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

//go:embed epay.json
var epayDocument []byte

// Document is the OpenAPI document, as served.
func Document() []byte { return document }

// EpayDocument is the epay-compatible door's OpenAPI document, as served.
func EpayDocument() []byte { return epayDocument }

// ForServer is the document whose servers entry is publicURL, the
// gateway's GATEWAY_PUBLIC_URL: "try it" buttons and generated clients then
// reach the gateway that served it, not the make run default the file names.
// Only the servers value is replaced, so the rest is served as written.
func ForServer(publicURL string) ([]byte, error) {
	return withServer(document, "openapi.json", publicURL)
}

// EpayForServer is EpayDocument whose servers entry is publicURL, as
// ForServer is for the main document: a plugin's API address is that URL.
func EpayForServer(publicURL string) ([]byte, error) {
	return withServer(epayDocument, "epay.json", publicURL)
}

func withServer(doc []byte, name, publicURL string) ([]byte, error) {
	var top struct {
		Servers json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(top.Servers) == 0 || bytes.Count(doc, top.Servers) != 1 {
		return nil, fmt.Errorf("%s: want exactly one servers value to replace", name)
	}
	servers, err := json.Marshal([]map[string]string{{"url": publicURL, "description": "this gateway (GATEWAY_PUBLIC_URL)"}})
	if err != nil {
		return nil, fmt.Errorf("%s servers: %w", name, err)
	}
	return bytes.Replace(doc, top.Servers, servers, 1), nil
}

// Handler answers GET /openapi.json (or /openapi-epay.json) with doc
// (ForServer's or EpayForServer's).
func Handler(doc []byte) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Send(doc)
	}
}
