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
// POST for all acts (act=refund must be POSTed). It is mounted apart from
// Mount's submit.php and mapi.php: api.php needs the query side's reads
// and the command side's refund, so only a node running both serves it.
func MountAPI(r fiber.Router, d *APIDoor) {
	r.Get("/api.php", d.api)
	r.Post("/api.php", d.api)
}
