// Package epay is the HTTP door of the epay-compatible merchant protocol
// (package epay holds its rules): it reads the protocol's parameters,
// calls one use case and writes the protocol's answer. It only
// translates; no rule lives here.
package epay

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/epay"
)

// APIDoor is what api.php's handler calls.
type APIDoor struct {
	API *epay.API
	Log *slog.Logger
}

// MountAPI adds api.php at the root, where the protocol's plugins expect
// it (their setting is the gateway's address only): GET for the reads,
// POST for all acts (act=refund must be POSTed).
func MountAPI(r fiber.Router, d *APIDoor) {
	r.Get("/api.php", d.api)
	r.Post("/api.php", d.api)
}
