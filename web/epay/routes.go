package epay

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/platform"
)

// Door is what the door's handlers call.
type Door struct {
	Create *epay.Create
	IPs    *platform.ClientIP
	Base   string // the gateway's public URL, which payer links start with
	Log    *slog.Logger
}

// Mount adds the door's routes: the protocol's paths at the root, where
// its plugins expect them (their setting is the gateway's address only).
func Mount(r fiber.Router, d *Door) {
	r.Get("/submit.php", d.submit)
	r.Post("/submit.php", d.submit)
	r.Post("/mapi.php", d.mapi)
}
